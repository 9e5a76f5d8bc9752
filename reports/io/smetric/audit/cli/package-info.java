/**
 * The picocli command line: one {@code Callable<Integer>} class per subcommand, named exit
 * codes, and the mapping from exceptions to exit codes. Only here is a SparkSession built. Option
 * groups that several commands take are declared once as mixins (SparkOptions, ReplayOptions,
 * HashOptions with SaltOptions, CharacterizationOptions); the defaults their help texts print come
 * from the code that defines them, through the Defaults resource bundle.
 */
package io.smetric.audit.cli;
