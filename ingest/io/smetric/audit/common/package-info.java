/**
 * Plumbing every stage shares: exit codes, input and usage errors that name the place they come
 * from, the SparkSession factory used only by commands' main, JSON output and atomic output
 * folders on any Hadoop FileSystem.
 */
package io.smetric.audit.common;
