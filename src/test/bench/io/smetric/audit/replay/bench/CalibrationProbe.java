package io.smetric.audit.replay.bench;

import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementReader;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Lab probe: fits or evaluates a profile on a shipped measurement set.
 * Args: SET GROUP_SUBSTRING PROFILE(NAME|FILE) PARAMS(comma list or '-' to only evaluate) [ID_SUBSTRING_TO_EXCLUDE...]
 */
public final class CalibrationProbe {
  public static void main(String[] a) {
    List<Measurement> ms = MeasurementReader.readResource(a[0]).stream()
        .filter(m -> m.group().contains(a[1]))
        .filter(m -> Arrays.stream(a).skip(4).noneMatch(x -> m.id().contains(x)))
        .toList();
    ModelProfile p = ModelProfile.resolve(a[2]);
    long t0 = System.nanoTime();
    if (a[3].startsWith("fv:")) { // fit on ids containing the train substring, evaluate the rest
      String[] parts = a[3].split(":");
      List<String> params = List.of(parts[1].split(","));
      List<Measurement> train = ms.stream().filter(m -> m.id().contains(parts[2])).toList();
      List<Measurement> test = ms.stream().filter(m -> !m.id().contains(parts[2])).toList();
      Calibrator.Result r;
      try {
        r = Calibrator.fit(train, p, Calibrator.Options.defaults(params));
      } catch (Calibrator.FitRejected e) {
        System.out.println("REJECTED: " + e.getMessage());
        r = e.result;
      }
      System.out.println("-- fit");
      for (Calibrator.PointFit f : r.points()) print(f);
      for (String f : r.fitted()) System.out.println(f + " = " + get(r.profile(), f) + " +- " + r.sigma().get(f));
      System.out.println("-- held out");
      for (Calibrator.PointFit f : Calibrator.evaluate(test, r.profile(), MeasurementReplay.Options.DEFAULT)) print(f);
    } else if (a[3].startsWith("loo:")) { // leave one out: fit on the others, predict the one
      List<String> params = List.of(a[3].substring(4).split(","));
      for (int k = 0; k < ms.size(); k++) {
        List<Measurement> train = new java.util.ArrayList<>(ms);
        Measurement held = train.remove(k);
        Calibrator.Result r;
        try {
          r = Calibrator.fit(train, p, Calibrator.Options.defaults(params));
        } catch (Calibrator.FitRejected e) {
          r = e.result;
        }
        for (Calibrator.PointFit f : Calibrator.evaluate(List.of(held), r.profile(), MeasurementReplay.Options.DEFAULT)) print(f);
      }
    } else if (a[3].equals("-")) {
      for (Calibrator.PointFit f : Calibrator.evaluate(ms, p, MeasurementReplay.Options.DEFAULT)) print(f);
    } else {
      Calibrator.Result r;
      try {
        r = Calibrator.fit(ms, p, Calibrator.Options.defaults(List.of(a[3].split(","))));
      } catch (Calibrator.FitRejected e) {
        System.out.println("REJECTED: " + e.getMessage());
        r = e.result;
      }
      for (Calibrator.PointFit f : r.points()) print(f);
      System.out.println("fitted " + r.fitted() + " not identifiable " + r.notIdentifiable() + " evals " + r.evaluations()
          + " iters " + r.iterations() + " rms " + r.rmsError() + " sigma " + r.sigma());
      for (String f : r.fitted()) System.out.println(f + " = " + get(r.profile(), f));
    }
    System.out.printf(Locale.ROOT, "%.1f s%n", (System.nanoTime() - t0) / 1e9);
  }

  private static void print(Calibrator.PointFit f) {
    System.out.printf(Locale.ROOT, "%-70s %-10s %10.4g %10.4g %+7.1f%%%n", f.id(), f.metric(), f.measured(), f.modelled(), 100 * f.error());
  }

  private static double get(ModelProfile p, String f) {
    try {
      return ModelProfile.class.getField(f).getDouble(p);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
