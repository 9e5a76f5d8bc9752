package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report's global-tier traffic table against the replay.json it is read from (issue 26 item 5). */
class GlobalTierTrafficTest {
  /**
   * A hand-made replay.json: capacity 0 (no global tier: left out of the table) and 1.6x at load
   * 1.5x with two routers; the tier's limits of a 4-instance, 1-node cluster (aggregate 21.75 GB/s).
   */
  private static JsonNode replay(double smetricPeak) throws Exception {
    return Json.MAPPER.readTree("""
        {"global_tier": {"per_instance_read_gbps": 1.1, "instances": 4, "instances_per_node": 8, "nodes": 1,
          "instances_read_gbps": 4.4, "node_nic_gbps": 21.75, "remote_share": 0, "nics_read_gbps": null,
          "aggregate_gbps": 21.75, "aggregate_source": "the profile's globalAggregateGBpsPerNode 21.75 GB/s x 1 node(s)",
          "read_ceiling_gbps": 4.4},
         "equal_load": {"by_global_ratio": [
          {"global_ratio": 0.0, "points": [{"load": 1.5, "policies": {"smetric": {"global_bytes_read": 0,
            "global_mean_read_bytes_per_s": 0, "global_peak_read_bytes_per_s": 0, "session_migrations": 7}}}]},
          {"global_ratio": 1.6, "points": [{"load": 1.5, "policies": {
            "smetric": {"global_bytes_read": 2.5e10, "global_mean_read_bytes_per_s": 5.0e8,
              "global_peak_read_bytes_per_s": %s, "session_migrations": 312},
            "lmetric": {"global_bytes_read": 4.0e9, "global_mean_read_bytes_per_s": 8.0e7,
              "global_peak_read_bytes_per_s": 2.2e9, "session_migrations": 45}}}]}]}}
        """.formatted(smetricPeak));
  }

  @Test
  void rows_equalReplayJsonValues() throws Exception {
    List<GlobalTierTraffic.Row> rows = GlobalTierTraffic.rows(replay(3.3e9));
    assertEquals(2, rows.size(), "capacity 0 has no global tier: left out");
    GlobalTierTraffic.Row sm = rows.get(0);
    assertEquals("smetric", sm.router());
    assertEquals(1.6, sm.globalRatio());
    assertEquals(1.5, sm.load());
    assertEquals(25.0, sm.gbRead(), 1e-12);
    assertEquals(0.5, sm.meanGbps(), 1e-12);
    assertEquals(3.3, sm.peakGbps(), 1e-12);
    assertEquals(3.3 / 21.75, sm.peakOfAggregate(), 1e-12);
    assertEquals(3.3 / 4.4, sm.peakOfCeiling(), 1e-12);
    assertEquals(312, sm.migrations());
    assertEquals(4.0, rows.get(1).gbRead(), 1e-12);
    assertEquals(45, rows.get(1).migrations());
  }

  @Test
  void html_printsTheRowsAndWhetherTheAggregateBinds() throws Exception {
    Html h = new Html();
    GlobalTierTraffic.html(h, replay(3.3e9));
    String s = h.toString();
    // smetric's row: 25 GB, 0.5 GB/s mean, 3.3 GB/s peak, 3.3 / 21.75 = 15.2% of the aggregate, 3.3 / 4.4 = 75.0% of the ceiling
    assertTrue(s.contains("<td>smetric</td><td>25 GB</td><td>0.5 GB/s</td><td>3.3 GB/s</td><td>15.2%</td><td>75.0%</td>"
        + "<td>312</td>"), s);
    assertTrue(s.contains("the aggregate limit binds for no router here"), s);
    assertTrue(s.contains("each instance reads at most 1.1 GB/s (4 instances: 4.4 GB/s together)"), s);
    Html b = new Html();
    GlobalTierTraffic.html(b, replay(21.0e9)); // 21 / 21.75 = 96.6% >= 95%
    assertTrue(b.toString().contains("96.6% of the aggregate limit: the aggregate limit binds for at least that router"),
        b.toString());
  }
}
