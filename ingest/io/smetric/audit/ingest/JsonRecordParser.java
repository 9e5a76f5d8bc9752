package io.smetric.audit.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.Fnv1a;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The shared streaming (Jackson token-level) reading of the JSONL trace formats: one subclass per
 * format ({@link SmetricRecordParser}, {@link BailianRecordParser}, {@link MooncakeRecordParser})
 * maps the format's field names onto canonical slots and says which are required, the timestamp
 * unit and the default block size, and finishes a record the format's own way. Unknown fields are
 * skipped. Type and range checks name the field in the quarantine reason.
 */
abstract class JsonRecordParser implements RecordParser {

  enum Slot { REQUEST_ID, SESSION_ID, PARENT_ID, TURN, TRIGGER, ARRIVAL, INPUT, OUTPUT, BLOCK_SIZE, BLOCKS, TYPE,
    PROVIDER_INPUT, PROVIDER_CACHED, PROVIDER_CACHE_WRITE, PROVIDER_CACHE,
    SERVED_INSTANCE, TTFT, E2E, FIRST_TOKEN, FINISH, OUTCOME }

  /**
   * How a JSONL format names and scales its fields.
   *
   * @param fields field name -> slot (several names may fill one slot)
   * @param required slots a record must have (a missing one is reported by its alphabetically first name)
   * @param secondsPerTimeUnit the arrival field's unit in seconds
   * @param defaultBlockSize block size of records that give none (null: the record must, when it has blocks)
   * @param idFromLine request ids are line numbers (the format has none)
   * @param parentMinusOneIsRoot a parent id of -1 means "no parent"
   */
  record Fields(
      Map<String, Slot> fields,
      java.util.EnumSet<Slot> required,
      double secondsPerTimeUnit,
      Integer defaultBlockSize,
      boolean idFromLine,
      boolean parentMinusOneIsRoot) {}

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private final Fields d;
  private final Integer blockSizeOverride;
  private final String idPrefix;

  JsonRecordParser(Fields d, TraceFormat.ParseContext c) {
    this.d = d;
    this.blockSizeOverride = c.blockSizeOverride();
    this.idPrefix = c.idPrefix();
  }

  /** What the format does to a record that parsed and passed the common checks (default: nothing). */
  void finishRecord(Staged s) {}

  @Override
  public final void parse(byte[] line, int len, long index, Staged s) {
    java.util.EnumSet<Slot> seen = java.util.EnumSet.noneOf(Slot.class);
    try (JsonParser p = FACTORY.createParser(line, 0, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        s.fail(Reasons.MALFORMED_JSON, null, "line is not a JSON object");
        return;
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        Slot slot = d.fields().get(name);
        if (slot == null) {
          p.skipChildren();
          continue;
        }
        seen.add(slot);
        if (s.ok()) readSlot(p, v, slot, name, s);
        else p.skipChildren();
      }
      if (t != JsonToken.END_OBJECT) {
        s.fail(Reasons.MALFORMED_JSON, null, "unexpected " + t);
        return;
      }
      if (p.nextToken() != null) {
        s.fail(Reasons.MALFORMED_JSON, null, "trailing content after the JSON object");
        return;
      }
    } catch (JsonParseException e) {
      s.reset();
      s.fail(Reasons.MALFORMED_JSON, null, firstLine(e.getOriginalMessage()));
      return;
    } catch (IOException e) {
      s.reset();
      s.fail(Reasons.MALFORMED_JSON, null, firstLine(e.getMessage()));
      return;
    }
    if (!s.ok()) return;
    for (Slot r : d.required()) {
      if (!seen.contains(r)) {
        s.fail(Reasons.MISSING_FIELD, nameOf(r), "required field is missing");
        return;
      }
    }
    finish(index, s);
  }

  private void finish(long index, Staged s) {
    if (!s.checkProviderCache()) return;
    if (!s.checkRecorded()) return;
    if (d.idFromLine()) s.requestId = idPrefix + index;
    if (s.trigger == null) s.trigger = Canonical.TRIGGER_UNKNOWN;
    if (blockSizeOverride != null) s.blockSize = blockSizeOverride;
    else if (s.blockSize == null) s.blockSize = d.defaultBlockSize();
    if (s.hasBlocks) {
      if (s.blockSize == null) {
        s.fail(Reasons.MISSING_FIELD, "block_size", "record has block ids but no block_size (pass --block-size)");
        return;
      }
      BlockChain.chainInPlace(s.blocks.elements(), s.blocks.size());
    } else {
      // a block size without blocks says nothing: keep it null so analyses say "no blocks"
      s.blockSize = null;
    }
    finishRecord(s);
  }

  private void readSlot(JsonParser p, JsonToken v, Slot slot, String name, Staged s) throws IOException {
    switch (slot) {
      case REQUEST_ID -> s.requestId = idValue(p, v, name, s, false);
      case SESSION_ID -> s.sessionId = idValue(p, v, name, s, true);
      case PARENT_ID -> {
        if (d.parentMinusOneIsRoot() && v == JsonToken.VALUE_NUMBER_INT && p.getLongValue() == -1) {
          s.parentId = null;
        } else {
          s.parentId = idValue(p, v, name, s, true);
        }
      }
      case TURN -> {
        if (v == JsonToken.VALUE_NULL) return;
        long x = intValue(p, v, name, s);
        if (!s.ok()) return;
        if (x < 0) s.fail(Reasons.NEGATIVE_VALUE, name, "turn " + x + " < 0");
        else if (x > Integer.MAX_VALUE) s.fail(Reasons.BAD_VALUE, name, "turn " + x + " is too large");
        else s.turn = (int) x;
      }
      case TRIGGER -> {
        if (v == JsonToken.VALUE_NULL) return;
        if (v != JsonToken.VALUE_STRING) s.fail(Reasons.BAD_TYPE, name, "expected a string, got " + v);
        else s.trigger = p.getText();
      }
      case TYPE -> {
        if (v == JsonToken.VALUE_NULL) return;
        if (v == JsonToken.VALUE_STRING) s.requestType = p.getText();
        else if (v.isScalarValue()) s.requestType = p.getText();
        else s.fail(Reasons.BAD_TYPE, name, "expected a string, got " + v);
      }
      case ARRIVAL -> {
        if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
          s.fail(v == JsonToken.VALUE_NULL ? Reasons.MISSING_FIELD : Reasons.BAD_TYPE, name, "expected a number, got " + v);
          return;
        }
        double x = p.getDoubleValue() * d.secondsPerTimeUnit();
        if (Double.isNaN(x) || Double.isInfinite(x)) s.fail(Reasons.BAD_TIMESTAMP, name, "timestamp is " + p.getText());
        else if (x < 0) s.fail(Reasons.BAD_TIMESTAMP, name, "timestamp " + p.getText() + " is negative");
        else s.arrivalS = x;
      }
      case INPUT, OUTPUT -> {
        long x = intValue(p, v, name, s);
        if (!s.ok()) return;
        if (x < 0) s.fail(Reasons.NEGATIVE_VALUE, name, name + " " + x + " < 0");
        else if (x > Integer.MAX_VALUE) s.fail(Reasons.BAD_VALUE, name, name + " " + x + " is too large");
        else if (slot == Slot.INPUT) s.inputTokens = x;
        else s.outputTokens = x;
      }
      case BLOCK_SIZE -> {
        if (v == JsonToken.VALUE_NULL) return;
        long x = intValue(p, v, name, s);
        if (!s.ok()) return;
        if (x <= 0 || x > 1 << 20) s.fail(Reasons.BAD_VALUE, name, "block_size " + x + " is not in 1..1048576");
        else s.blockSize = (int) x;
      }
      case BLOCKS -> readBlocks(p, v, name, s);
      case PROVIDER_INPUT, PROVIDER_CACHED, PROVIDER_CACHE_WRITE -> {
        if (v == JsonToken.VALUE_NULL) return;
        long x = intValue(p, v, name, s);
        if (!s.ok()) return;
        if (x < 0) s.fail(Reasons.NEGATIVE_VALUE, name, name + " " + x + " < 0");
        else if (x > Integer.MAX_VALUE) s.fail(Reasons.BAD_VALUE, name, name + " " + x + " is too large");
        else if (slot == Slot.PROVIDER_INPUT) s.providerInputTokens = (int) x;
        else if (slot == Slot.PROVIDER_CACHED) s.providerCachedTokens = (int) x;
        else s.providerCacheWriteTokens = (int) x;
      }
      case PROVIDER_CACHE -> {
        if (v == JsonToken.VALUE_NULL) return;
        if (v != JsonToken.VALUE_STRING) s.fail(Reasons.BAD_TYPE, name, "expected a string, got " + v);
        else s.providerCache = p.getText();
      }
      case SERVED_INSTANCE -> s.servedInstance = idValue(p, v, name, s, true);
      case OUTCOME -> {
        if (v == JsonToken.VALUE_NULL) return;
        if (v != JsonToken.VALUE_STRING) s.fail(Reasons.BAD_TYPE, name, "expected a string, got " + v);
        else s.outcome = p.getText();
      }
      case TTFT, E2E, FIRST_TOKEN, FINISH -> {
        if (v == JsonToken.VALUE_NULL) return;
        if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
          s.fail(Reasons.BAD_TYPE, name, "expected a number of seconds, got " + v);
          p.skipChildren();
          return;
        }
        // durations are seconds; first-token and finish times are on the arrival's clock and unit
        double x = p.getDoubleValue() * (slot == Slot.TTFT || slot == Slot.E2E ? 1.0 : d.secondsPerTimeUnit());
        if (Double.isNaN(x) || Double.isInfinite(x)) s.fail(Reasons.BAD_VALUE, name, name + " is " + p.getText());
        else if (slot == Slot.TTFT) s.ttftS = x;
        else if (slot == Slot.E2E) s.e2eS = x;
        else if (slot == Slot.FIRST_TOKEN) s.firstTokenS = x;
        else s.finishS = x;
      }
    }
  }

  private static void readBlocks(JsonParser p, JsonToken v, String name, Staged s) throws IOException {
    if (v == JsonToken.VALUE_NULL) return;
    if (v != JsonToken.START_ARRAY) {
      s.fail(Reasons.BAD_TYPE, name, "expected an array of block ids, got " + v);
      p.skipChildren();
      return;
    }
    s.hasBlocks = true;
    JsonToken t;
    int i = 0;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t == JsonToken.VALUE_NUMBER_INT) {
        s.blocks.add(p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue().longValue() : p.getLongValue());
      } else if (t == JsonToken.VALUE_STRING) {
        s.blocks.add(hashString(p.getText()));
      } else {
        s.fail(Reasons.BAD_TYPE, name, "element " + i + " is " + t + ", expected an integer or string id");
        if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) p.skipChildren();
        // keep consuming to stay in sync
        while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
          if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) p.skipChildren();
        }
        return;
      }
      i++;
    }
  }

  /** String block ids (hex digests, etc.) become 64-bit ids by hashing their UTF-8 bytes. */
  static long hashString(String x) {
    byte[] b = x.getBytes(StandardCharsets.UTF_8);
    return BlockChain.fmix64(Fnv1a.hash(b) ^ b.length);
  }

  private static String idValue(JsonParser p, JsonToken v, String name, Staged s, boolean nullable) throws IOException {
    if (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT) {
      String x = p.getText();
      if (x.isEmpty() && !nullable) {
        s.fail(Reasons.BAD_VALUE, name, "empty id");
        return null;
      }
      return x.isEmpty() ? null : x;
    }
    if (v == JsonToken.VALUE_NULL) {
      if (!nullable) s.fail(Reasons.MISSING_FIELD, name, "id is null");
      return null;
    }
    s.fail(Reasons.BAD_TYPE, name, "expected a string or integer id, got " + v);
    p.skipChildren();
    return null;
  }

  private static long intValue(JsonParser p, JsonToken v, String name, Staged s) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        s.fail(Reasons.BAD_VALUE, name, "integer out of range: " + p.getText());
        return 0;
      }
      return p.getLongValue();
    }
    if (v == JsonToken.VALUE_NUMBER_FLOAT) {
      double x = p.getDoubleValue();
      if (x == Math.rint(x) && Math.abs(x) < 9e15) return (long) x;
      s.fail(Reasons.BAD_TYPE, name, "expected an integer, got " + p.getText());
      return 0;
    }
    s.fail(v == JsonToken.VALUE_NULL ? Reasons.MISSING_FIELD : Reasons.BAD_TYPE, name, "expected an integer, got " + describe(p, v));
    p.skipChildren();
    return 0;
  }

  private static String describe(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_STRING) return "string \"" + abbreviate(p.getText()) + "\"";
    return v.toString();
  }

  private static String abbreviate(String x) {
    return x.length() > 40 ? x.substring(0, 40) + "..." : x;
  }

  private String nameOf(Slot slot) {
    String best = null;
    for (Map.Entry<String, Slot> e : d.fields().entrySet()) {
      if (e.getValue() == slot && (best == null || e.getKey().compareTo(best) < 0)) best = e.getKey();
    }
    return best;
  }

  private static String firstLine(String m) {
    if (m == null) return "unreadable JSON";
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
