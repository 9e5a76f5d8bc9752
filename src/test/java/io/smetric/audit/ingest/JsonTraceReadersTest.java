package io.smetric.audit.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Each JSONL trace format's reader on hand-made lines, through its {@link TraceFormat} constant. */
class JsonTraceReadersTest {
  private static Staged parse(TraceFormat f, String line, long index) {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    Staged s = new Staged();
    s.reset();
    f.parser(new TraceFormat.ParseContext(null, "f1:", 0)).parse(b, b.length, index, s);
    return s;
  }

  @Test
  void bailian_rootParentIsMinusOne_sessionAndTriggerLeftToTheChains_16TokenBlocks() {
    Staged s = parse(TraceFormat.BAILIAN, "{\"chat_id\": 7, \"parent_chat_id\": -1, \"timestamp\": 2.5, \"input_length\": 40,"
        + " \"output_length\": 3, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [11, 12, 13]}", 0);
    assertNull(s.reason);
    assertEquals("7", s.requestId);
    assertNull(s.parentId);
    assertNull(s.sessionId);
    assertEquals(Canonical.TRIGGER_UNKNOWN, s.trigger);
    assertEquals(2.5, s.arrivalS);
    assertEquals(16, s.blockSize);
    assertArrayEquals(BlockChain.chain(new long[] {11, 12, 13}), s.blocks.toLongArray());
  }

  @Test
  void bailian_missingTurn_isQuarantinedNamingTheField() {
    Staged s = parse(TraceFormat.BAILIAN, "{\"chat_id\": 7, \"parent_chat_id\": -1, \"timestamp\": 2.5, \"input_length\": 40,"
        + " \"output_length\": 3}", 0);
    assertEquals(Reasons.MISSING_FIELD, s.reason);
    assertEquals("turn", s.field);
  }

  @Test
  void mooncake_idIsThePrefixedLineIndex_timestampInMilliseconds_512TokenBlocks() {
    Staged s = parse(TraceFormat.MOONCAKE, "{\"timestamp\": 1500, \"input_length\": 600, \"output_length\": 2,"
        + " \"hash_ids\": [5, 6]}", 41);
    assertNull(s.reason);
    assertEquals("f1:41", s.requestId);
    assertEquals(1.5, s.arrivalS, 1e-12);
    assertEquals(512, s.blockSize);
    assertNull(s.sessionId);
  }

  @Test
  void smetric_sessionAndTriggerAsGiven_blocksWithoutBlockSize_areQuarantined() {
    Staged ok = parse(TraceFormat.SMETRIC, "{\"request_id\": \"r1\", \"session_id\": \"s\", \"trigger\": \"tool\","
        + " \"arrival_s\": 3, \"input_tokens\": 10, \"output_tokens\": 1}", 0);
    assertNull(ok.reason);
    assertEquals("s", ok.sessionId);
    assertEquals("tool", ok.trigger);
    assertNull(ok.blockSize); // no blocks: no block size
    Staged bad = parse(TraceFormat.SMETRIC, "{\"request_id\": \"r1\", \"arrival_s\": 3, \"input_tokens\": 10,"
        + " \"output_tokens\": 1, \"hash_ids\": [1]}", 0);
    assertEquals(Reasons.MISSING_FIELD, bad.reason);
    assertEquals("block_size", bad.field);
  }
}
