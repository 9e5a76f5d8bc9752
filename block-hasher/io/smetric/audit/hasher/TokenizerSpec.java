package io.smetric.audit.hasher;

import com.knuddels.jtokkit.api.EncodingType;
import io.smetric.audit.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The {@code --tokenizer} choice in a form that travels to Spark executors: {@code o200k},
 * {@code cl100k} (jtokkit, inside the jar) or {@code hf:PATH} (the bytes of a tokenizer.json read
 * once on the driver from any Hadoop FileSystem). Executors open each tokenizer once per JVM.
 */
public final class TokenizerSpec implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ConcurrentHashMap<String, ChatTokenizer> OPEN = new ConcurrentHashMap<>();

  private final String kind;
  private final String label;
  private final byte[] hfJson;
  private final String cacheKey;

  private TokenizerSpec(String kind, String label, byte[] hfJson, String cacheKey) {
    this.kind = kind;
    this.label = label;
    this.hfJson = hfJson;
    this.cacheKey = cacheKey;
  }

  public static TokenizerSpec parse(String spec, Configuration conf) {
    switch (spec) {
      case "o200k", "o200k_base":
        return new TokenizerSpec("o200k", "o200k_base", null, "o200k");
      case "cl100k", "cl100k_base":
        return new TokenizerSpec("cl100k", "cl100k_base", null, "cl100k");
      default:
        if (spec.startsWith("hf:") && spec.length() > 3) {
          String uri = spec.substring(3);
          byte[] bytes = readAll(uri, conf);
          return new TokenizerSpec("hf", new Path(uri).getName(), bytes, "hf:" + sha256(bytes));
        }
        throw new UsageException("unknown --tokenizer '" + spec + "': use o200k, cl100k or hf:PATH/tokenizer.json");
    }
  }

  public String label() {
    return kind.equals("hf") ? "hf:" + label : label;
  }

  /** The tokenizer for this JVM (opened once; jtokkit encodings and DJL tokenizers are thread-safe). */
  public ChatTokenizer open(ChatTemplate template) {
    return OPEN.computeIfAbsent(cacheKey + "|" + template.name(), k -> switch (kind) {
      case "o200k" -> new TiktokenTokenizer(EncodingType.O200K_BASE);
      case "cl100k" -> new TiktokenTokenizer(EncodingType.CL100K_BASE);
      default -> new HfTokenizer(hfJson, label, template.specialTokens());
    });
  }

  private static byte[] readAll(String uri, Configuration conf) {
    Path p = new Path(uri);
    try (InputStream in = p.getFileSystem(conf).open(p)) {
      return in.readAllBytes();
    } catch (java.io.FileNotFoundException e) {
      throw new UsageException("tokenizer file not found: " + uri);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read tokenizer " + uri + ": " + e.getMessage(), e);
    }
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
