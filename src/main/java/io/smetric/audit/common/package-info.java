/**
 * Plumbing every stage shares: exit codes, input and usage errors that name the place they come
 * from, the SparkSession factory used only by commands' main, JSON output, atomic output folders
 * on any Hadoop FileSystem, and how numbers are printed for people (Numbers).
 *
 * <p>Part of the hub beside {@code contract}, but kept apart from it: these helpers say nothing
 * about the audit's data (no record, no file name, no metric), so a change here never changes
 * what stages exchange, and the contract stays a short read. Like the contract it imports no
 * stage (ArchitectureTest).
 */
package io.smetric.audit.common;
