package io.smetric.audit.hasher;

import it.unimi.dsi.fastutil.ints.IntArrayList;

/** A tokenizer as the hasher needs it: ordinary text to ids, and special tokens to single ids. */
public interface ChatTokenizer {
  /** Appends the ids of {@code text}, with no special-token parsing inside it. */
  void encodeText(String text, IntArrayList out);

  /** The single id of a special token of the template. */
  int special(String token);

  /** For the summary: e.g. {@code o200k_base (jtokkit 1.1.0)}. */
  String describe();
}
