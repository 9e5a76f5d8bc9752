package io.smetric.audit.common;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * An output folder written atomically: everything goes to a hidden sibling
 * {@code .NAME.tmp-UUID}, which is renamed onto NAME only by {@link #commit()}. An interrupted
 * run therefore never leaves a folder that looks complete. Works on any Hadoop FileSystem URI.
 *
 * <p>An existing target that holds anything (a non-empty folder, or a file) is refused with {@link
 * OutputExistsException} unless overwrite; an empty folder is used as it is (e.g. one made by
 * {@code mktemp -d}), since replacing it loses nothing.
 */
public final class OutputDir implements AutoCloseable {
  private final FileSystem fs;
  private final Path target;
  private final Path temp;
  private final boolean overwrite;
  private boolean committed;

  private OutputDir(FileSystem fs, Path target, Path temp, boolean overwrite) {
    this.fs = fs;
    this.target = target;
    this.temp = temp;
    this.overwrite = overwrite;
  }

  /** Fails with {@link OutputExistsException} up front, before any work, unless overwrite or the target is free. */
  public static OutputDir open(String uri, boolean overwrite, Configuration conf) {
    try {
      return open(uri, overwrite, new Path(uri).getFileSystem(conf));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare output " + uri + ": " + e.getMessage(), e);
    }
  }

  /** The same on a file system the caller already holds (that {@code uri} belongs to). */
  public static OutputDir open(String uri, boolean overwrite, FileSystem fs) {
    try {
      Path target = fs.makeQualified(new Path(uri));
      if (!overwrite && taken(fs, target)) throw OutputExistsException.folder(uri);
      Path temp = new Path(target.getParent(), "." + target.getName() + ".tmp-" + UUID.randomUUID());
      fs.mkdirs(temp);
      return new OutputDir(fs, target, temp, overwrite);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare output " + uri + ": " + e.getMessage(), e);
    }
  }

  /**
   * The check {@link #open} makes, without opening anything: for a command that must refuse a
   * taken output before long work but opens its folder only when it has something to write.
   */
  public static void refuseIfTaken(String uri, boolean overwrite, Configuration conf) {
    if (overwrite) return;
    try {
      Path target = new Path(uri);
      FileSystem fs = target.getFileSystem(conf);
      if (taken(fs, fs.makeQualified(target))) throw OutputExistsException.folder(uri);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare output " + uri + ": " + e.getMessage(), e);
    }
  }

  /** Whether replacing {@code target} would lose something: it exists and is not an empty folder. */
  private static boolean taken(FileSystem fs, Path target) throws IOException {
    if (!fs.exists(target)) return false;
    return !fs.getFileStatus(target).isDirectory() || fs.listStatus(target).length > 0;
  }

  /** The URI of a child of the temporary folder, for Spark writers. */
  public String child(String name) {
    return new Path(temp, name).toString();
  }

  public Path tempPath() {
    return temp;
  }

  public Path targetPath() {
    return target;
  }

  public FileSystem fs() {
    return fs;
  }

  public void writeString(String name, String content) {
    try (OutputStream out = fs.create(new Path(temp, name), true)) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + name + ": " + e.getMessage(), e);
    }
  }

  public OutputStream create(String name) throws IOException {
    return fs.create(new Path(temp, name), true);
  }

  public void commit() {
    try {
      if (fs.exists(target)) {
        if (!overwrite && taken(fs, target)) throw OutputExistsException.folder(target.toString());
        fs.delete(target, true);
      }
      if (!fs.rename(temp, target)) throw new IOException("rename failed: " + temp + " -> " + target);
      committed = true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot commit output " + target + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (!committed) {
      try {
        fs.delete(temp, true);
      } catch (IOException ignored) {
        // best effort: a leftover hidden temp folder is harmless and never looks complete
      }
    }
  }
}
