package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StepTimingCsvTest {

  @Test
  void rows_becomeStepMeasurements(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "steps.csv", "group,prefill_tokens,prefill_pairs,decode_seqs,decode_context_tokens,step_s\n"
        + "g1,2048,2097152,0,0,0.120\n"
        + "g1,0,,64,40000,0.0212\n");
    assertEquals(MeasurementReader.Format.STEP_TIMING_CSV, MeasurementReader.detect(f));
    List<Measurement> ms = MeasurementReader.read(f);
    assertEquals(2, ms.size());
    assertEquals(new StepTiming(2048, 2097152, 0, 0, 0.120), ms.get(0).step());
    assertEquals(new StepTiming(0, 0, 64, 40000, 0.0212), ms.get(1).step());
    assertEquals(Kind.STEP, ms.get(1).kind());
    assertEquals("g1", ms.get(1).group());
    assertNull(ms.get(1).workload());
  }

  @Test
  void negativeContext_namesLineAndColumn(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "steps.csv", "prefill_tokens,decode_seqs,decode_context_tokens,step_s\n0,4,-5,0.01\n");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals(2, e.line());
    assertEquals("decode_context_tokens", e.field());
  }
}
