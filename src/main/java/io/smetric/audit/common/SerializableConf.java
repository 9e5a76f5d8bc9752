package io.smetric.audit.common;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;

/**
 * Ships the driver's Hadoop configuration (file system settings, credentials providers) to
 * tasks, so that executors open hdfs:, s3a: and file: paths exactly as the driver does.
 */
public final class SerializableConf implements Serializable {
  private static final long serialVersionUID = 1L;
  private transient Configuration conf;

  public SerializableConf(Configuration conf) {
    this.conf = conf;
  }

  public Configuration get() {
    return conf;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    conf.write(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    conf = new Configuration(false);
    conf.readFields(in);
  }
}
