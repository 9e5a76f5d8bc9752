/**
 * The picocli command line: one {@code Callable<Integer>} class per subcommand, named exit
 * codes, and the mapping from exceptions to exit codes. Only here is a SparkSession built.
 */
package io.smetric.audit.cli;
