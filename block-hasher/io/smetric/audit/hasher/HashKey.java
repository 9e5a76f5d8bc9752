package io.smetric.audit.hasher;

import io.smetric.audit.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The secret keys of the block-hasher, derived from the user's salt: one SipHash key for block
 * hashes and one for identifiers (session and request ids taken from the log), so that an id can
 * never be matched against a block hash. Key = first 16 bytes of SHA-256(label || 0x00 || salt).
 * The salt itself is dropped after derivation; {@link #toString()} never shows key material.
 */
public final class HashKey implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Salts shorter than this are refused: a short salt can be brute-forced against known prompts. */
  public static final int MIN_SALT_BYTES = 16;

  private final long blockK0, blockK1, idK0, idK1;

  private HashKey(long blockK0, long blockK1, long idK0, long idK1) {
    this.blockK0 = blockK0;
    this.blockK1 = blockK1;
    this.idK0 = idK0;
    this.idK1 = idK1;
  }

  /** Derives the keys; trailing CR/LF of the salt are ignored (an editor's final newline). */
  public static HashKey fromSalt(byte[] salt) {
    int n = salt.length;
    while (n > 0 && (salt[n - 1] == '\n' || salt[n - 1] == '\r')) n--;
    if (n < MIN_SALT_BYTES) {
      throw new UsageException("the salt has " + n + " bytes; at least " + MIN_SALT_BYTES
          + " are required (e.g. `head -c 32 /dev/urandom | base64 > salt`)");
    }
    byte[] s = Arrays.copyOf(salt, n);
    try {
      long[] b = derive("smetric-audit/block-hasher/blocks/v1", s);
      long[] i = derive("smetric-audit/block-hasher/ids/v1", s);
      return new HashKey(b[0], b[1], i[0], i[1]);
    } finally {
      Arrays.fill(s, (byte) 0);
    }
  }

  /** Reads the salt from a file on any Hadoop FileSystem. */
  public static HashKey fromFile(String uri, Configuration conf) {
    Path p = new Path(uri);
    try (InputStream in = p.getFileSystem(conf).open(p)) {
      byte[] salt = in.readNBytes(1 << 20);
      try {
        return fromSalt(salt);
      } finally {
        Arrays.fill(salt, (byte) 0);
      }
    } catch (java.io.FileNotFoundException e) {
      throw new UsageException("salt file not found: " + uri);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the salt file " + uri + ": " + e.getMessage(), e);
    }
  }

  /** Reads the salt from an environment variable (UTF-8 bytes of its value). */
  public static HashKey fromEnv(String variable) {
    String v = System.getenv(variable);
    if (v == null) throw new UsageException("environment variable " + variable + " (the salt) is not set");
    return fromSalt(v.getBytes(StandardCharsets.UTF_8));
  }

  private static long[] derive(String label, byte[] salt) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(label.getBytes(StandardCharsets.US_ASCII));
      md.update((byte) 0);
      md.update(salt);
      byte[] d = md.digest();
      return new long[] {SipHash24.le64(d, 0), SipHash24.le64(d, 8)};
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One chained block hash (see {@link SipHash24#chainBlock}). */
  public long block(long prev, int[] tokens, int from, int len, byte[] scratch) {
    return SipHash24.chainBlock(blockK0, blockK1, prev, tokens, from, len, scratch);
  }

  /** Keyed hash of an identifier from the log (session or request id). */
  public long id(String value) {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    return SipHash24.hash(idK0, idK1, b, 0, b.length);
  }

  /** Keyed hash of arbitrary bytes under the id key (message fingerprints for prompt reuse). */
  public long fingerprint(byte[] b) {
    return SipHash24.hash(idK0, idK1 ^ 0x5bd1e995L, b, 0, b.length);
  }

  @Override
  public String toString() {
    return "HashKey(secret)";
  }

  /** Tests only: fixed keys to check the hash chain against the SipHash reference. */
  static HashKey ofRaw(long blockK0, long blockK1, long idK0, long idK1) {
    return new HashKey(blockK0, blockK1, idK0, idK1);
  }
}
