package io.smetric.audit.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every command's --out/--overwrite does (OutputOptions hands it here): a folder that holds
 * anything, or a file, is refused unless overwrite; an empty folder is used; overwrite replaces.
 */
class OutputDirTest {
  private static final Configuration CONF = new Configuration();
  @TempDir Path tmp;

  private static void write(Path target, boolean overwrite) {
    try (OutputDir d = OutputDir.open(target.toString(), overwrite, CONF)) {
      d.writeString("new.txt", "new");
      d.commit();
    }
  }

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      // Hadoop's local file system writes a .NAME.crc checksum beside each file it writes
      return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".crc")).sorted().toList();
    }
  }

  @Test
  void open_nonEmptyFolder_isRefusedNamingItAndOverwrite() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.writeString(out.resolve("old.txt"), "old");
    OutputExistsException e = assertThrows(OutputExistsException.class, () -> write(out, false));
    assertEquals("output folder " + out + " exists and is not empty (pass --overwrite to replace it and everything in it, "
        + "or choose another folder)", e.getMessage());
    assertEquals(List.of("old.txt"), names(out));
    assertEquals(List.of("out"), names(tmp)); // no temporary sibling left behind
  }

  @Test
  void open_fileAtTheTarget_isRefused() throws Exception {
    Path out = Files.writeString(tmp.resolve("out"), "a file");
    assertThrows(OutputExistsException.class, () -> write(out, false));
    assertEquals("a file", Files.readString(out));
  }

  @Test
  void open_emptyFolder_isUsed() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("out"));
    write(out, false);
    assertEquals(List.of("new.txt"), names(out));
  }

  @Test
  void open_withOverwrite_replacesWhatTheFolderHeld() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.writeString(out.resolve("old.txt"), "old");
    write(out, true);
    assertEquals(List.of("new.txt"), names(out));
  }

  @Test
  void refuseIfTaken_checksWithoutCreatingAnything() throws Exception {
    Path out = tmp.resolve("out");
    OutputDir.refuseIfTaken(out.toString(), false, CONF);
    assertFalse(Files.exists(out));
    assertEquals(List.of(), names(tmp));
    Files.createDirectories(out);
    OutputDir.refuseIfTaken(out.toString(), false, CONF);
    Files.writeString(out.resolve("old.txt"), "old");
    assertThrows(OutputExistsException.class, () -> OutputDir.refuseIfTaken(out.toString(), false, CONF));
    OutputDir.refuseIfTaken(out.toString(), true, CONF);
    assertTrue(Files.exists(out.resolve("old.txt")));
  }
}
