package io.smetric.audit.generate;

import java.io.IOException;

/**
 * Writes generated requests in one {@link OutputFormat} plus the ground-truth side file (the same
 * for every format, one line per request by 0-based line number). Field names and order are
 * the contract with the ingest readers (docs/generator.md, "Output formats").
 */
final class TraceWriter implements RequestSink, AutoCloseable {
  private static final byte[] S_REQ = JsonlOut.ascii("{\"request_id\":\"r");
  private static final byte[] S_SESSION = JsonlOut.ascii("\",\"session_id\":\"s");
  private static final byte[] S_PARENT_NULL = JsonlOut.ascii("\",\"parent_id\":null");
  private static final byte[] S_PARENT = JsonlOut.ascii("\",\"parent_id\":\"r");
  private static final byte[] S_TURN_Q = JsonlOut.ascii("\",\"turn\":");
  private static final byte[] S_TURN = JsonlOut.ascii(",\"turn\":");
  private static final byte[] S_TRIGGER = JsonlOut.ascii(",\"trigger\":");
  private static final byte[] S_ARRIVAL = JsonlOut.ascii(",\"arrival_s\":");
  private static final byte[] S_IN = JsonlOut.ascii(",\"input_tokens\":");
  private static final byte[] S_OUT = JsonlOut.ascii(",\"output_tokens\":");
  private static final byte[] S_BS = JsonlOut.ascii(",\"block_size\":");
  private static final byte[] HASH_IDS = JsonlOut.ascii(",\"hash_ids\":");

  private static final byte[] B_CHAT = JsonlOut.ascii("{\"chat_id\":");
  private static final byte[] B_PARENT = JsonlOut.ascii(",\"parent_chat_id\":");
  private static final byte[] B_TS = JsonlOut.ascii(",\"timestamp\":");
  private static final byte[] B_IN = JsonlOut.ascii(",\"input_length\":");
  private static final byte[] B_OUT = JsonlOut.ascii(",\"output_length\":");
  private static final byte[] B_TYPE = JsonlOut.ascii(",\"type\":");

  private static final byte[] M_TS = JsonlOut.ascii("{\"timestamp\":");

  private static final byte[] T_LINE = JsonlOut.ascii("{\"line\":");
  private static final byte[] T_SESSION = JsonlOut.ascii(",\"session_id\":\"s");
  private static final byte[] T_PARENT = JsonlOut.ascii("\",\"parent_line\":");
  private static final byte[] T_FORK = JsonlOut.ascii(",\"fork\":");
  private static final byte[] T_COMPACTED = JsonlOut.ascii(",\"compacted\":");
  private static final byte[] T_FRAMEWORK = JsonlOut.ascii(",\"framework\":");
  private static final byte[] T_AUX = JsonlOut.ascii(",\"aux\":");

  private final OutputFormat format;
  private final JsonlOut out;
  private final JsonlOut truth;

  TraceWriter(OutputFormat format, JsonlOut out, JsonlOut truth) {
    this.format = format;
    this.out = out;
    this.truth = truth;
  }

  @Override
  public void accept(GeneratedRequest r) throws IOException {
    long micros = Math.round(r.arrivalS * 1e6);
    switch (format) {
      case SMETRIC -> {
        out.raw(S_REQ).num(r.line).raw(S_SESSION).num(r.session);
        if (r.parentLine < 0) out.raw(S_PARENT_NULL).raw(S_TURN);
        else out.raw(S_PARENT).num(r.parentLine).raw(S_TURN_Q);
        out.num(r.turn).raw(S_TRIGGER).str(r.trigger).raw(S_ARRIVAL).micros(micros)
            .raw(S_IN).num(r.inputTokens).raw(S_OUT).num(r.outputTokens).raw(S_BS).num(r.blockSize)
            .raw(HASH_IDS).ids(r.blocks).ch('}').ch('\n');
      }
      case BAILIAN -> out.raw(B_CHAT).num(r.line).raw(B_PARENT).num(r.parentLine).raw(B_TS).micros(micros)
          .raw(B_IN).num(r.inputTokens).raw(B_OUT).num(r.outputTokens).raw(B_TYPE).str(r.type)
          .raw(S_TURN).num(r.turn + 1L).raw(HASH_IDS).ids(r.blocks).ch('}').ch('\n');
      case MOONCAKE -> out.raw(M_TS).num(Math.round(r.arrivalS * 1e3)).raw(B_IN).num(r.inputTokens)
          .raw(B_OUT).num(r.outputTokens).raw(HASH_IDS).ids(r.blocks).ch('}').ch('\n');
    }
    truth.raw(T_LINE).num(r.line).raw(T_SESSION).num(r.session).raw(T_PARENT);
    if (r.parentLine < 0) truth.raw(NULL);
    else truth.num(r.parentLine);
    truth.raw(S_TURN).num(r.turn).raw(S_TRIGGER).str(r.trigger)
        .raw(T_FORK).raw(r.fork ? TRUE : FALSE).raw(T_COMPACTED).raw(r.compacted ? TRUE : FALSE)
        .raw(T_FRAMEWORK);
    if (r.framework < 0) truth.raw(NULL);
    else truth.num(r.framework);
    truth.raw(T_AUX).raw(r.aux ? TRUE : FALSE).ch('}').ch('\n');
  }

  private static final byte[] NULL = JsonlOut.ascii("null");
  private static final byte[] TRUE = JsonlOut.ascii("true");
  private static final byte[] FALSE = JsonlOut.ascii("false");

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } finally {
      truth.close();
    }
  }
}
