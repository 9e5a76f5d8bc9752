/**
 * Plumbing every stage shares: exit codes, input and usage errors that name the place they come
 * from, the SparkSession factory used only by commands' main, JSON output, atomic output folders
 * on any Hadoop FileSystem, and how numbers are printed for people (Numbers).
 */
package io.smetric.audit.common;
