package dev.sharedarrays.spark;

import dev.sharedarrays.spark.internal.ArrayTable;
import dev.sharedarrays.spark.internal.ArrayWriter;
import dev.sharedarrays.spark.internal.Options;
import dev.sharedarrays.spark.internal.QueueTable;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's {@code format("sharedarrays")}: shared arrays and queues as a source and a sink.
 *
 * <pre>
 * spark.read.format("sharedarrays").load("grid")                  // or a handle: "shm://grid?id=..."
 * df.write.format("sharedarrays").mode("overwrite").save("result")
 * spark.readStream.format("sharedarrays").option("dtype", "f8").option("shape", "1024").load("queue/frames")
 * df.writeStream.format("sharedarrays").option("checkpointLocation", dir).start("queue/results")
 * </pre>
 *
 * <p><b>Reading an array</b>: one row per index of the leading axis: {@code index} (bigint), then a
 * column {@code value} (1-D), {@code c0 .. c<n-1>} (2-D up to 1024 columns) or {@code values}
 * ({@code array<T>}, wider or more dimensions); unsigned types as the next wider signed type,
 * U64 as decimal(20,0). Columns pruned and bounds on {@code index} pushed down. Each partition
 * reads its rows' memory in place, in column batches (no copy into Spark's memory), and prefers
 * the array's host. An executor on another host reads its rows through the Flight bridge of the
 * array's host: option {@code flight} ("grpc+tcp://hostA:8815"), {@code token} (else the
 * client's default), {@code host} (the preferred location; default the array's host),
 * {@code partitions} (at least this many; default the default parallelism; each about 64 MiB).
 *
 * <p><b>Writing an array</b>: a new array of the rows in the DataFrame's order (see
 * {@code ArrayWriter}): options {@code dtype}, {@code lifetime} (persistent by default),
 * {@code backend}; modes error-if-exists (default), ignore, overwrite; append is refused.
 *
 * <p><b>Queues</b>: {@code readStream} takes the queue's messages as micro-batches (options
 * {@code dtype}, {@code shape}, {@code maxMessagesPerBatch}; columns {@code message}, then a
 * message's as above); the end of the queue stops the query. {@code writeStream} sends each row as
 * a message through a pool of option {@code slots} slots. At most once, as the queue.
 *
 * <p>A JVM that runs Spark in process needs Spark's {@code --add-opens} flags, the library's
 * {@code --enable-native-access=ALL-UNNAMED} and, on JDK 23+, {@code --sun-misc-unsafe-memory-access=allow}
 * (bin/demo spark and spark/pom.xml's {@code spark.opens} list them).
 */
public final class SharedArraysSource implements TableProvider, DataSourceRegister, CreatableRelationProvider {
    public SharedArraysSource() {
    }

    @Override
    public String shortName() {
        return "sharedarrays";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return table(options, null).schema();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return table(new CaseInsensitiveStringMap(properties), schema);
    }

    /** The schema a user gives is taken for writes; reads use the array's (a given one must match it). */
    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    private static Table table(CaseInsensitiveStringMap options, StructType given) {
        return Options.isQueue(Options.path(options)) ? new QueueTable(options, given) : new ArrayTable(options);
    }

    /** Batch writes go through Spark's first data source API: only it passes every save mode. */
    @Override
    public BaseRelation createRelation(SQLContext sqlContext, SaveMode mode, scala.collection.immutable.Map<String, String> parameters,
                                       Dataset<Row> data) {
        ArrayWriter.write(data, new CaseInsensitiveStringMap(CollectionConverters.asJava(parameters)), mode);
        StructType schema = data.schema();
        return new BaseRelation() {
            @Override
            public SQLContext sqlContext() {
                return sqlContext;
            }

            @Override
            public StructType schema() {
                return schema;
            }
        };
    }
}
