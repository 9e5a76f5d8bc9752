package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.knuddels.jtokkit.api.EncodingType;
import io.smetric.audit.common.UsageException;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class TokenizerTest {
  static final Path RES = Path.of(System.getProperty("smetric.repo", "."), "src/test/resources/hasher");

  static int[] encode(ChatTokenizer t, String s) {
    IntArrayList out = new IntArrayList();
    t.encodeText(s, out);
    return out.toIntArray();
  }

  @Test
  void o200k_helloWorld_isThePublishedIds() {
    // o200k_base "hello world" = [24912, 2375], as tiktoken and other ports publish it
    assertArrayEquals(new int[] {24912, 2375}, encode(new TiktokenTokenizer(EncodingType.O200K_BASE), "hello world"));
  }

  @Test
  void cl100k_helloWorld_isThePublishedIds() {
    assertArrayEquals(new int[] {15339, 1917}, encode(new TiktokenTokenizer(EncodingType.CL100K_BASE), "hello world"));
  }

  @Test
  void tiktoken_endOfTextInUserText_isOrdinaryTextNotTheSpecialToken() {
    int[] ids = encode(new TiktokenTokenizer(EncodingType.O200K_BASE), "<|endoftext|>");
    assertTrue(ids.length > 1, "several ordinary tokens, never the single special id 199999");
    for (int id : ids) assertTrue(id != 199999);
  }

  @Test
  void tiktoken_chatMlMarkers_areSingleIdsAboveTheVocabulary() {
    TiktokenTokenizer t = new TiktokenTokenizer(EncodingType.O200K_BASE);
    assertEquals(200264, t.special(ChatMlTemplate.IM_START));
    assertEquals(200265, t.special(ChatMlTemplate.IM_END));
  }

  @Test
  void hf_wordLevelTokenizer_encodesWordsAndMarkers() throws Exception {
    HfTokenizer t = new HfTokenizer(Files.readAllBytes(RES.resolve("wordlevel-tokenizer.json")), "wordlevel",
        List.of(ChatMlTemplate.IM_START, ChatMlTemplate.IM_END));
    assertArrayEquals(new int[] {3, 4, 2}, encode(t, "hello world zebra")); // zebra -> [UNK] = 2
    assertEquals(0, t.special(ChatMlTemplate.IM_START));
    assertEquals(1, t.special(ChatMlTemplate.IM_END));
    assertTrue(t.markersAreTokens());
  }

  @Test
  void hf_tokenizerWithoutMarkers_reportsThemAsText() throws Exception {
    HfTokenizer t = new HfTokenizer(Files.readAllBytes(RES.resolve("wordlevel-no-markers.json")), "plain",
        List.of(ChatMlTemplate.IM_START, ChatMlTemplate.IM_END));
    assertFalse(t.markersAreTokens());
    assertEquals(-1, t.special(ChatMlTemplate.IM_START));
  }

  @Test
  void spec_missingHfFile_isAUsageError() {
    assertThrows(UsageException.class, () -> TokenizerSpec.parse("hf:/nonexistent/tokenizer.json", new Configuration()));
  }

  @Test
  void spec_unknownName_isAUsageError() {
    assertThrows(UsageException.class, () -> TokenizerSpec.parse("gpt2", new Configuration()));
  }
}
