package io.smetric.audit.characterize;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;

/**
 * One output table of the characterization: either rows built in memory (every table but
 * {@code sessions} on a cluster; written with parquet-mr, no Spark job) or a Spark Dataset. Both
 * are written as one Parquet file in a folder, with the Spark schema in the footer, so Spark and
 * DuckDB read the same columns, types and nullability from either.
 */
public interface Table {
  /** Column types used by the tables. */
  enum Kind {
    LONG("long"), INT("integer"), DOUBLE("double"), STRING("string");

    final String spark;

    Kind(String spark) {
      this.spark = spark;
    }
  }

  record Col(String name, Kind kind, boolean nullable) {}

  List<Col> columns();

  /** Every row, as Java values (Long, Integer, Double, String or null), in file order. */
  List<Object[]> rows();

  /** Writes the folder {@code dir} (it must not exist). */
  void write(String dir, Configuration conf) throws IOException;

  /** The table as a Spark Dataset (for notebooks and tests). */
  Dataset<Row> toDataset(org.apache.spark.sql.SparkSession spark);

  /** The Spark schema of the columns. */
  default org.apache.spark.sql.types.StructType sparkSchema() {
    org.apache.spark.sql.types.StructType t = new org.apache.spark.sql.types.StructType();
    for (Col c : columns()) {
      org.apache.spark.sql.types.DataType d = switch (c.kind()) {
        case LONG -> org.apache.spark.sql.types.DataTypes.LongType;
        case INT -> org.apache.spark.sql.types.DataTypes.IntegerType;
        case DOUBLE -> org.apache.spark.sql.types.DataTypes.DoubleType;
        case STRING -> org.apache.spark.sql.types.DataTypes.StringType;
      };
      t = t.add(c.name(), d, c.nullable());
    }
    return t;
  }

  static Table of(List<Col> cols, List<Object[]> rows) {
    return new Rows(cols, rows);
  }

  static Table of(Dataset<Row> ds) {
    return new Spark(ds);
  }

  /** Nullable columns, as {@code createDataFrame} makes them. */
  static List<Col> cols(Object... nameKind) {
    List<Col> out = new ArrayList<>();
    for (int i = 0; i < nameKind.length; i += 2) out.add(new Col((String) nameKind[i], (Kind) nameKind[i + 1], true));
    return out;
  }

  /** In-memory rows written by parquet-mr. */
  final class Rows implements Table {
    private final List<Col> cols;
    private final List<Object[]> rows;

    Rows(List<Col> cols, List<Object[]> rows) {
      this.cols = cols;
      this.rows = rows;
    }

    @Override
    public List<Col> columns() {
      return cols;
    }

    @Override
    public List<Object[]> rows() {
      return rows;
    }

    @Override
    public Dataset<Row> toDataset(org.apache.spark.sql.SparkSession spark) {
      List<Row> r = new ArrayList<>();
      for (Object[] v : rows) r.add(org.apache.spark.sql.RowFactory.create(v));
      return spark.createDataFrame(r, sparkSchema());
    }

    /** Spark's JSON for the schema (key org.apache.spark.sql.parquet.row.metadata). */
    String sparkSchemaJson() {
      StringBuilder b = new StringBuilder("{\"type\":\"struct\",\"fields\":[");
      for (int i = 0; i < cols.size(); i++) {
        Col c = cols.get(i);
        if (i > 0) b.append(',');
        b.append("{\"name\":\"").append(c.name()).append("\",\"type\":\"").append(c.kind().spark)
            .append("\",\"nullable\":").append(c.nullable()).append(",\"metadata\":{}}");
      }
      return b.append("]}").toString();
    }

    MessageType parquetSchema() {
      Types.MessageTypeBuilder m = Types.buildMessage();
      for (Col c : cols) {
        Repetition rep = c.nullable() ? Repetition.OPTIONAL : Repetition.REQUIRED;
        switch (c.kind()) {
          case LONG -> m.primitive(PrimitiveTypeName.INT64, rep).named(c.name());
          case INT -> m.primitive(PrimitiveTypeName.INT32, rep).named(c.name());
          case DOUBLE -> m.primitive(PrimitiveTypeName.DOUBLE, rep).named(c.name());
          case STRING -> m.primitive(PrimitiveTypeName.BINARY, rep).as(LogicalTypeAnnotation.stringType()).named(c.name());
          default -> throw new IllegalStateException();
        }
      }
      return m.named("spark_schema");
    }

    @Override
    public void write(String dir, Configuration conf) throws IOException {
      MessageType schema = parquetSchema();
      URI u = new Path(dir).toUri();
      boolean local = u.getScheme() == null || u.getScheme().equals("file");
      OutputFile out;
      if (local) {
        java.nio.file.Path d = Paths.get(u.getPath());
        Files.createDirectories(d);
        out = new LocalOutputFile(d.resolve(PART));
      } else {
        Path d = new Path(dir);
        FileSystem fs = d.getFileSystem(conf);
        fs.mkdirs(d);
        out = HadoopOutputFile.fromPath(new Path(d, PART), conf);
      }
      ExampleParquetWriter.Builder wb = ExampleParquetWriter.builder(out).withType(schema)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .withExtraMetaData(Map.of(SPARK_SCHEMA_KEY, sparkSchemaJson()));
      wb = local ? wb.withConf(new PlainParquetConfiguration()) : wb.withConf(conf);
      try (ParquetWriter<Group> w = wb.build()) {
        for (Object[] r : rows) {
          SimpleGroup g = new SimpleGroup(schema);
          for (int i = 0; i < cols.size(); i++) {
            Object v = r[i];
            if (v == null) {
              if (!cols.get(i).nullable()) throw new IllegalStateException("null in required column " + cols.get(i).name());
              continue;
            }
            switch (cols.get(i).kind()) {
              case LONG -> g.add(i, ((Number) v).longValue());
              case INT -> g.add(i, ((Number) v).intValue());
              case DOUBLE -> g.add(i, ((Number) v).doubleValue());
              case STRING -> g.add(i, (String) v);
              default -> throw new IllegalStateException();
            }
          }
          w.write(g);
        }
      }
      if (local) {
        Files.createFile(Paths.get(u.getPath()).resolve("_SUCCESS"));
      } else {
        Path d = new Path(dir);
        d.getFileSystem(conf).create(new Path(d, "_SUCCESS")).close();
      }
    }

    static final String PART = "part-00000.snappy.parquet";
    static final String SPARK_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.metadata";
  }

  /** A Spark Dataset (the sessions table on a cluster: one row per session, never collected). */
  final class Spark implements Table {
    final Dataset<Row> ds;

    Spark(Dataset<Row> ds) {
      this.ds = ds;
    }

    @Override
    public List<Col> columns() {
      List<Col> out = new ArrayList<>();
      for (var f : ds.schema().fields()) {
        Kind k = switch (f.dataType().typeName()) {
          case "long" -> Kind.LONG;
          case "integer" -> Kind.INT;
          case "double" -> Kind.DOUBLE;
          default -> Kind.STRING;
        };
        out.add(new Col(f.name(), k, f.nullable()));
      }
      return out;
    }

    @Override
    public List<Object[]> rows() {
      List<Object[]> out = new ArrayList<>();
      for (Row r : ds.collectAsList()) {
        Object[] v = new Object[r.size()];
        for (int i = 0; i < v.length; i++) v[i] = r.get(i);
        out.add(v);
      }
      return out;
    }

    @Override
    public Dataset<Row> toDataset(org.apache.spark.sql.SparkSession spark) {
      return ds;
    }

    @Override
    public void write(String dir, Configuration conf) {
      ds.coalesce(1).write().mode(SaveMode.ErrorIfExists).parquet(dir);
    }
  }
}
