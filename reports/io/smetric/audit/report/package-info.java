/**
 * Reports: the self-contained HTML page with PNG charts (XChart), audit.json for machines, and
 * the comparison of several audits. Rendering writes to a local folder.
 */
package io.smetric.audit.report;
