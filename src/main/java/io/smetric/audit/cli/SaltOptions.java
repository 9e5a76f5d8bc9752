package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.hasher.HashKey;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Option;

/**
 * Where the block-hasher's secret salt comes from (a picocli mixin of {@code hash} and
 * {@code audit}): a file or an environment variable, never the command line, where it would show
 * in the process list and shell history.
 */
public final class SaltOptions {
  @Option(names = "--salt-file", paramLabel = "FILE", description = "File holding the secret salt (>= 16 bytes; a final newline is ignored).")
  String saltFile;

  @Option(names = "--salt-env", paramLabel = "VAR", description = "Environment variable holding the salt (default when no --salt-file: SMETRIC_SALT).")
  String saltEnv;

  void validate() {
    if (saltFile != null && saltEnv != null) throw new UsageException("give --salt-file or --salt-env, not both");
  }

  /** The key from the environment, read before Spark starts; null when a salt file is given. */
  HashKey envKeyOrNull() {
    return saltFile == null ? HashKey.fromEnv(saltEnv != null ? saltEnv : "SMETRIC_SALT") : null;
  }

  /** The key: from the environment as above, else from the file (which may need the cluster's FS configuration). */
  HashKey key(HashKey envKey, Configuration conf) {
    return envKey != null ? envKey : HashKey.fromFile(saltFile, conf);
  }
}
