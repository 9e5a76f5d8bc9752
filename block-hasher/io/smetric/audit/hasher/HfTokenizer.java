package io.smetric.audit.hasher;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.smetric.audit.common.UsageException;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json} through DJL's binding of the Rust tokenizers library (its
 * native library ships inside the jar; nothing is downloaded). No truncation, no added BOS/EOS:
 * the template decides every token. A template marker that the file defines as an added token
 * maps to its id; one it does not define is encoded as ordinary text (several tokens), which
 * {@link #markersAreTokens()} reports and the summary records.
 */
public final class HfTokenizer implements ChatTokenizer {
  private final HuggingFaceTokenizer tokenizer;
  private final String name;
  private final Map<String, Integer> specials = new HashMap<>();
  private boolean markersAreTokens = true;

  public HfTokenizer(byte[] tokenizerJson, String name, Iterable<String> markers) {
    this.name = name;
    Map<String, String> opts = new HashMap<>();
    opts.put("addSpecialTokens", "false");
    opts.put("truncation", "false");
    opts.put("padding", "false");
    opts.put("maxLength", String.valueOf(Integer.MAX_VALUE / 2));
    try {
      this.tokenizer = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerJson), opts);
    } catch (IOException | RuntimeException e) {
      throw new UsageException("cannot load the Hugging Face tokenizer " + name + ": " + e.getMessage());
    }
    for (String m : markers) {
      long[] ids = tokenizer.encode(m, false, false).getIds();
      if (ids.length == 1) specials.put(m, (int) ids[0]);
      else markersAreTokens = false;
    }
  }

  public boolean markersAreTokens() {
    return markersAreTokens;
  }

  @Override
  public void encodeText(String text, IntArrayList out) {
    if (text.isEmpty()) return;
    long[] ids = tokenizer.encode(text, false, false).getIds();
    out.ensureCapacity(out.size() + ids.length);
    for (long id : ids) out.add((int) id);
  }

  /** The marker's id, or -1 when the file does not define it as one token (encode it as text). */
  @Override
  public int special(String token) {
    Integer id = specials.get(token);
    return id == null ? -1 : id;
  }

  @Override
  public String describe() {
    return "hf:" + name + " (DJL tokenizers)" + (markersAreTokens ? "" : " [template markers encoded as text]");
  }
}
