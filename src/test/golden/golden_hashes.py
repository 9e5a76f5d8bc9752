#!/usr/bin/env python3
"""Golden values for BlockChainGoldenTest and HashKeyGoldenTest, computed apart from the Java code.

Written from the documented algorithms, not translated from the Java sources:
- chained block ids (docs/trace-model.md section 1, BlockChain's Javadoc): c[-1] = the ASCII bytes
  of "smetric!" read as a big-endian 64-bit number; c[i] = mix64(c[i-1], b[i]) with
  mix64(p, b) = fmix64(p XOR fmix64(b + 0x9E3779B97F4A7C15)), fmix64 the MurmurHash3 64-bit
  finaliser (Appleby's MurmurHash3.cpp) and 0x9E37... SplitMix64's increment (Steele et al. 2014);
- the hasher's keys (docs/block-hasher.md, HashKey's Javadoc): key = first 16 bytes of
  SHA-256(label || 0x00 || salt) as two little-endian 64-bit words, labels
  "smetric-audit/block-hasher/blocks/v1" and ".../ids/v1", trailing CR/LF of the salt dropped;
  an id is SipHash-2-4 (Aumasson and Bernstein 2012) of its UTF-8 bytes under the id key; a block
  is SipHash-2-4 of the previous hash (8 bytes LE) followed by its token ids (4 bytes LE each)
  under the block key. SipHash is checked here against the paper's Appendix A vector first.

Run: python3 src/test/golden/golden_hashes.py   (prints the literals the tests hold)
"""
import hashlib
import struct

M = (1 << 64) - 1


def signed(x):
    x &= M
    return x - (1 << 64) if x >> 63 else x


def fmix64(k):
    k &= M
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M
    k ^= k >> 33
    return k


def mix64(prev, block):
    return fmix64((prev & M) ^ fmix64((block + 0x9E3779B97F4A7C15) & M))


SEED = int.from_bytes(b"smetric!", "big")


def chain(blocks):
    c, out = SEED, []
    for b in blocks:
        c = mix64(c, b)
        out.append(c)
    return out


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M


def siphash24(k0, k1, data):
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rnd():
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & M; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
        v2 = (v2 + v3) & M; v3 = rotl(v3, 16); v3 ^= v2
        v0 = (v0 + v3) & M; v3 = rotl(v3, 21); v3 ^= v0
        v2 = (v2 + v1) & M; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)

    n = len(data)
    full = n - n % 8
    for i in range(0, full, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        rnd(); rnd()
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    rnd(); rnd()
    v0 ^= last
    v2 ^= 0xFF
    for _ in range(4):
        rnd()
    return v0 ^ v1 ^ v2 ^ v3


# SipHash paper, Appendix A: key 00..0f, message 00..0e -> a129ca6149be45e5
assert siphash24(int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little"),
                 bytes(range(15))) == 0xA129CA6149BE45E5


def keys(salt):
    salt = salt.rstrip(b"\r\n")
    out = []
    for label in (b"smetric-audit/block-hasher/blocks/v1", b"smetric-audit/block-hasher/ids/v1"):
        d = hashlib.sha256(label + b"\x00" + salt).digest()
        out.append((int.from_bytes(d[0:8], "little"), int.from_bytes(d[8:16], "little")))
    return out


def block(k, prev, tokens):
    return siphash24(k[0], k[1], struct.pack("<Q", prev & M) + b"".join(struct.pack("<I", t & 0xFFFFFFFF) for t in tokens))


def lit(x):
    return "0x%016xL" % (x & M)


print("SEED", lit(SEED))
for blocks in ([], [0], [42], [1, 2, 3, 4], [1, 2, 9, 4], [-1, -(1 << 63), (1 << 63) - 1]):
    print("chain", blocks, [lit(c) for c in chain(blocks)])

for salt in (b"unit-test salt, not a secret", b"correct horse battery staple 42", b"correct horse battery staple 43"):
    (bk, ik) = keys(salt)
    print("salt", salt.decode())
    print("  block key", lit(bk[0]), lit(bk[1]), " id key", lit(ik[0]), lit(ik[1]))
    print("  id('session-1')", lit(siphash24(ik[0], ik[1], "session-1".encode())))
    print("  id('')", lit(siphash24(ik[0], ik[1], b"")))
    b0 = block(bk, 0, list(range(1, 17)))
    print("  block(0, tokens 1..16)", lit(b0))
    print("  block(prev, tokens 100000, 7, 151643)", lit(block(bk, b0, [100000, 7, 151643])))
