package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.knuddels.jtokkit.api.EncodingType;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PromptBuilderTest {
  static final TiktokenTokenizer O200K = new TiktokenTokenizer(EncodingType.O200K_BASE);
  static final HashKey RAW = HashKey.ofRaw(SipHash24Test.K0, SipHash24Test.K1, 1, 2);
  static final ChatMlTemplate T = new ChatMlTemplate();
  static final Pattern MARKER = Pattern.compile("<\\|im_start\\|>|<\\|im_end\\|>");

  /**
   * Independent whole-prompt tokenisation, as tiktoken's encode(text, allowed_special=...) does
   * it: split the rendered text at the special markers, encode each run with jtokkit directly.
   */
  static int[] wholePromptTokens(String rendered) {
    IntArrayList out = new IntArrayList();
    Matcher m = MARKER.matcher(rendered);
    int last = 0;
    while (m.find()) {
      if (m.start() > last) addAll(out, O200K.encoding().encodeOrdinary(rendered.substring(last, m.start())));
      out.add(m.group().equals(ChatMlTemplate.IM_START) ? 200264 : 200265);
      last = m.end();
    }
    if (last < rendered.length()) addAll(out, O200K.encoding().encodeOrdinary(rendered.substring(last)));
    return out.toIntArray();
  }

  static void addAll(IntArrayList out, com.knuddels.jtokkit.api.IntArrayList ids) {
    for (int i = 0; i < ids.size(); i++) out.add(ids.get(i));
  }

  /** Independent chain: SipHash-2-4 of (previous hash || block tokens), last block partial. */
  static long[] chain(int[] tokens, int b) {
    List<Long> out = new ArrayList<>();
    byte[] scratch = new byte[8 + 4 * b];
    long prev = 0;
    for (int i = 0; i < tokens.length; i += b) {
      prev = SipHash24.chainBlock(SipHash24Test.K0, SipHash24Test.K1, prev, tokens, i, Math.min(b, tokens.length - i), scratch);
      out.add(prev);
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  static PromptBuilder build(List<ChatMessage> msgs, List<String> tools, HashKey key, int b) {
    PromptBuilder pb = new PromptBuilder(T, O200K, key, b);
    for (int i = 0; i < msgs.size(); i++) pb.append(msgs.get(i), i == 0 ? tools : List.of());
    return pb;
  }

  @Test
  void incremental_weatherConversation_equalsWholePromptTokenisation() {
    List<ChatMessage> msgs = ChatMlTemplateTest.weatherConversation();
    int[] tokens = wholePromptTokens(ChatMlTemplateTest.render(msgs, ChatMlTemplateTest.TOOLS, true));
    PromptBuilder pb = build(msgs, ChatMlTemplateTest.TOOLS, RAW, 16);
    assertEquals(tokens.length, pb.promptTokens());
    assertArrayEquals(chain(tokens, 16), pb.promptBlocks());
  }

  @Test
  void incremental_realSweAgentTrajectory_equalsWholePromptTokenisation() throws Exception {
    // code, CRLF and blank lines at message edges: the cases where BPE merges could cross a boundary
    JsonNode traj = Messages.MAPPER.readTree(Path.of(System.getProperty("smetric.repo", "."),
        "sample-traces/raw-logs/swe-agent/marshmallow-1867__function_calling.traj").toFile());
    List<ChatMessage> msgs = new ArrayList<>();
    for (JsonNode m : traj.get("history")) msgs.add(Messages.openai(m, "t", 1, "history"));
    int[] tokens = wholePromptTokens(ChatMlTemplateTest.render(msgs, List.of(), true));
    PromptBuilder pb = build(msgs, List.of(), RAW, 16);
    assertEquals(tokens.length, pb.promptTokens());
    assertArrayEquals(chain(tokens, 16), pb.promptBlocks());
  }

  @Test
  void markersAsPlainText_wouldTokeniseDifferently() {
    // the deviation the docs describe: without special-token handling a marker is several tokens
    String r = ChatMlTemplateTest.render(ChatMlTemplateTest.weatherConversation(), List.of(), true);
    assertTrue(O200K.encoding().encodeOrdinary(r).size() > wholePromptTokens(r).length);
  }

  @Test
  void threeTurns_blockListsExtendEachOtherExactlyWhereTheTokensDo() {
    List<ChatMessage> all = ChatMlTemplateTest.weatherConversation();
    // requests: before assistant #1 (2 messages), before assistant #2 (4), after the last user (6)
    int[] cut = {2, 4, 6};
    int b = 16;
    long[][] blocks = new long[3][];
    int[][] tokens = new int[3][];
    for (int k = 0; k < 3; k++) {
      List<ChatMessage> h = all.subList(0, cut[k]);
      blocks[k] = build(h, ChatMlTemplateTest.TOOLS, RAW, b).promptBlocks();
      tokens[k] = wholePromptTokens(ChatMlTemplateTest.render(h, ChatMlTemplateTest.TOOLS, true));
    }
    for (int k = 0; k < 2; k++) {
      int common = commonPrefix(tokens[k], tokens[k + 1]);
      int sharedBlocks = commonPrefix(blocks[k], blocks[k + 1]);
      // a block is shared iff all its tokens lie in the common token prefix: floor(common / b)
      assertEquals(common / b, sharedBlocks, "prompt " + k + " -> " + (k + 1));
      assertTrue(common >= tokens[k].length - 3, "the next prompt repeats all but the generation prompt's tail");
    }
  }

  @Test
  void partialLastBlock_getsAnotherIdOnceTheNextPromptFillsIt() {
    List<ChatMessage> all = ChatMlTemplateTest.weatherConversation();
    PromptBuilder a = build(all.subList(0, 2), List.of(), RAW, 16);
    PromptBuilder b = build(all.subList(0, 4), List.of(), RAW, 16);
    int n = a.promptTokens();
    assertTrue(n % 16 != 0, "the example has a partial last block");
    long[] x = a.promptBlocks();
    long[] y = b.promptBlocks();
    assertNotEquals(x[x.length - 1], y[x.length - 1]);
  }

  @Test
  void sameSalt_givesSameHashes() {
    byte[] salt = "correct horse battery staple 42".getBytes(StandardCharsets.UTF_8);
    List<ChatMessage> m = ChatMlTemplateTest.weatherConversation();
    assertArrayEquals(build(m, List.of(), HashKey.fromSalt(salt), 16).promptBlocks(),
        build(m, List.of(), HashKey.fromSalt(salt.clone()), 16).promptBlocks());
  }

  @Test
  void differentSalt_givesDisjointHashes() {
    List<ChatMessage> m = ChatMlTemplateTest.weatherConversation();
    long[] a = build(m, List.of(), HashKey.fromSalt("correct horse battery staple 42".getBytes(StandardCharsets.UTF_8)), 16).promptBlocks();
    long[] b = build(m, List.of(), HashKey.fromSalt("correct horse battery staple 43".getBytes(StandardCharsets.UTF_8)), 16).promptBlocks();
    LongOpenHashSet s = new LongOpenHashSet(a);
    for (long x : b) assertTrue(!s.contains(x));
  }

  @Test
  void saltFinalNewline_isIgnored() {
    List<ChatMessage> m = ChatMlTemplateTest.weatherConversation();
    assertArrayEquals(build(m, List.of(), HashKey.fromSalt("correct horse battery staple 42".getBytes(StandardCharsets.UTF_8)), 16).promptBlocks(),
        build(m, List.of(), HashKey.fromSalt("correct horse battery staple 42\n".getBytes(StandardCharsets.UTF_8)), 16).promptBlocks());
  }

  @Test
  void shortSalt_isRefused() {
    org.junit.jupiter.api.Assertions.assertThrows(io.smetric.audit.common.UsageException.class,
        () -> HashKey.fromSalt("short".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void golden_userHello_tokensAndChainArePinned() {
    // "<|im_start|>user\nhello world<|im_end|>\n<|im_start|>assistant\n" in o200k; the block ids
    // are pinned values, and the other tests check the same code path against the independent chain
    PromptBuilder pb = build(List.of(ChatMessage.of("user", "hello world")), List.of(), RAW, 4);
    int[] tokens = wholePromptTokens("<|im_start|>user\nhello world<|im_end|>\n<|im_start|>assistant\n");
    assertArrayEquals(GOLDEN_TOKENS, tokens);
    assertArrayEquals(GOLDEN_BLOCKS, pb.promptBlocks());
  }

  /** o200k: 1428 "user", 198 "\n", 24912 "hello", 2375 " world", 173781 "assistant". */
  static final int[] GOLDEN_TOKENS = {200264, 1428, 198, 24912, 2375, 200265, 198, 200264, 173781, 198};
  /** Blocks of 4: [200264 1428 198 24912] [2375 200265 198 200264] [173781 198], pinned on 2026-11-30. */
  static final long[] GOLDEN_BLOCKS = {0xbaf6fac0287feccbL, 0x8a4611fa8326f46bL, 0xc4917b624c0f45bbL};

  static int commonPrefix(int[] a, int[] b) {
    int i = 0;
    while (i < a.length && i < b.length && a[i] == b[i]) i++;
    return i;
  }

  static int commonPrefix(long[] a, long[] b) {
    int i = 0;
    while (i < a.length && i < b.length && a[i] == b[i]) i++;
    return i;
  }
}
