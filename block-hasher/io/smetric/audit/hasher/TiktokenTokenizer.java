package io.smetric.audit.hasher;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import com.knuddels.jtokkit.api.IntArrayList;
import java.util.Map;

/**
 * OpenAI's BPE encodings through jtokkit (the ranks files are inside its jar). Text is encoded
 * with {@code encodeOrdinary}, so a log that contains the literal text {@code <|endoftext|>}
 * counts it as ordinary text, as an API server does for user content. ChatML's markers are not in
 * the base encodings' special-token tables; they get the ids OpenAI's chat models reserve right
 * above the base vocabulary (cl100k: 100264/100265; o200k: 200264/200265). Only their hashes
 * leave, so what matters is that each is one token distinct from every text token.
 */
public final class TiktokenTokenizer implements ChatTokenizer {
  private static final Map<String, Integer> CL100K_SPECIAL = Map.of(ChatMlTemplate.IM_START, 100264, ChatMlTemplate.IM_END, 100265);
  private static final Map<String, Integer> O200K_SPECIAL = Map.of(ChatMlTemplate.IM_START, 200264, ChatMlTemplate.IM_END, 200265);

  private final Encoding encoding;
  private final Map<String, Integer> specials;

  public TiktokenTokenizer(EncodingType type) {
    this.encoding = Encodings.newLazyEncodingRegistry().getEncoding(type);
    this.specials = switch (type) {
      case CL100K_BASE -> CL100K_SPECIAL;
      case O200K_BASE -> O200K_SPECIAL;
      default -> throw new IllegalArgumentException("no ChatML ids for " + type);
    };
  }

  public Encoding encoding() {
    return encoding;
  }

  @Override
  public void encodeText(String text, it.unimi.dsi.fastutil.ints.IntArrayList out) {
    if (text.isEmpty()) return;
    IntArrayList ids = encoding.encodeOrdinary(text);
    int n = ids.size();
    out.ensureCapacity(out.size() + n);
    for (int i = 0; i < n; i++) out.add(ids.get(i));
  }

  @Override
  public int special(String token) {
    Integer id = specials.get(token);
    if (id == null) throw new IllegalArgumentException("no id for special token " + token);
    return id;
  }

  @Override
  public String describe() {
    return encoding.getName() + " (jtokkit)";
  }
}
