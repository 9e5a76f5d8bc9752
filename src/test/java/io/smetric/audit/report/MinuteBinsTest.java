package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MinuteBinsTest {
  @Test
  void width_isOneUpToMaxPoints_thenTheLeastThatFits() {
    assertEquals(1, MinuteBins.width(0));
    assertEquals(1, MinuteBins.width(MinuteBins.MAX_POINTS - 1)); // minutes 0..1999: 2000 points
    assertEquals(2, MinuteBins.width(MinuteBins.MAX_POINTS));     // 2001 points
    assertEquals(340, MinuteBins.width(679_999));                  // 680,000 minutes -> 2000 bins of 340
  }

  @Test
  void binsAggregateTheirOwnMinutes_byHand() {
    // minutes 0, 1, 2, 5, 6 in 3-minute bins: [0,3) holds 0,1,2; [3,6) holds 5; [6,9) holds 6
    double[] x = {0, 1, 2, 5, 6};
    MinuteBins.Layout l = MinuteBins.layout(x, 3);
    assertArrayEquals(new double[] {0, 3, 6}, l.start());
    assertArrayEquals(new int[] {0, 0, 0, 1, 2}, l.index());
    double[] v = {4, Double.NaN, 2, 7, 1};
    assertArrayEquals(new double[] {6, 7, 1}, MinuteBins.sum(l, v));
    assertArrayEquals(new double[] {3, 7, 1}, MinuteBins.mean(l, v)); // NaN left out: (4 + 2) / 2
    assertArrayEquals(new double[] {2, 7, 1}, MinuteBins.min(l, v));
    // a bin whose values are all missing stays missing
    assertArrayEquals(new double[] {Double.NaN, 7, 1}, MinuteBins.sum(l, new double[] {Double.NaN, Double.NaN, Double.NaN, 7, 1}));
    // width 1 keeps every minute as it is
    MinuteBins.Layout one = MinuteBins.layout(x, 1);
    assertArrayEquals(x, one.start());
    assertArrayEquals(v, MinuteBins.min(one, v));
  }
}
