/**
 * The top of the house: the picocli command line, one {@code Callable<Integer>} class per
 * subcommand, named exit codes, and the mapping from exceptions to exit codes. The only package
 * that imports stages: the audit command composes the stage jobs (ingest or hash, session
 * inference, characterization, replay, report) itself (docs/architecture.md). Only here is a
 * SparkSession built. Option groups that several commands take are declared once as mixins
 * (SparkOptions, ReplayOptions, HashOptions with SaltOptions, CharacterizationOptions); the
 * defaults their help texts print come from the code that defines them, through the Defaults
 * resource bundle. It lives in src/main/java beside the hub, not in a stage folder, so that every
 * arrow from one stage folder to another would be a violation (ArchitectureTest).
 */
package io.smetric.audit.cli;
