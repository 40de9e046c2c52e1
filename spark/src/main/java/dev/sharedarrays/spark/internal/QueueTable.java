package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A queue ({@code queue/<name>}) as a streaming table: read as micro-batches ({@link QueueStream}),
 * written through a pool ({@link QueueSink}). Read, its rows are the rows of each message:
 * {@code message} (the message's number in the stream), then the columns {@link ArrayColumns}
 * gives a message of options {@code dtype} and {@code shape} (required: the schema comes before
 * the first message).
 */
public final class QueueTable implements SupportsRead, SupportsWrite {
    public static final String MESSAGE = "message";

    private final CaseInsensitiveStringMap options;
    private final StructType given;

    public QueueTable(CaseInsensitiveStringMap options, StructType given) {
        this.options = options;
        this.given = given;
    }

    static String queueName(CaseInsensitiveStringMap options) {
        return Options.path(options).substring(Options.QUEUE_PREFIX.length());
    }

    /** The columns of a stream of messages of these columns. */
    static StructType schema(ArrayColumns message) {
        List<StructField> f = new ArrayList<>();
        f.add(DataTypes.createStructField(MESSAGE, DataTypes.LongType, false));
        f.addAll(Arrays.asList(message.schema().fields()));
        return new StructType(f.toArray(new StructField[0]));
    }

    /** The message geometry options dtype and shape give. */
    static ArrayColumns messageColumns(CaseInsensitiveStringMap options) {
        String dtype = options.get(Options.DTYPE);
        String shape = options.get(Options.SHAPE);
        if (dtype == null || shape == null) {
            throw new IllegalArgumentException("reading " + Options.path(options) + " needs the messages' element type and shape, as"
                    + " options: .option(\"dtype\", \"f8\").option(\"shape\", \"1024\") (or \"4,256\"; a pool's slot shape)");
        }
        long[] s;
        try {
            s = Arrays.stream(shape.split(",")).map(String::strip).mapToLong(Long::parseLong).toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option shape is numbers separated by commas, e.g. \"4,256\"; got " + shape);
        }
        if (s.length < 1 || Arrays.stream(s).anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("option shape has at least one dimension, each at least 1; got " + shape);
        }
        return ArrayColumns.of(DType.of(dtype), s);
    }

    @Override
    public String name() {
        return "sharedarrays:" + Options.path(options);
    }

    @Override
    public StructType schema() {
        return given != null ? given : schema(messageColumns(options));
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.MICRO_BATCH_READ, TableCapability.STREAMING_WRITE);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
        return () -> new Scan() {
            @Override
            public StructType readSchema() {
                return schema(messageColumns(options));
            }

            @Override
            public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
                String name = queueName(options);
                int max = Integer.parseInt(options.getOrDefault(Options.MAX_MESSAGES, "1024"));
                return new QueueStream(name, ArrayQueue.attach(Options.handle(name)), messageColumns(options), max);
            }
        };
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new WriteBuilder() {
            @Override
            public Write build() {
                return new Write() {
                    @Override
                    public StreamingWrite toStreaming() {
                        return new QueueSink(queueName(options), RowLayout.of(info.schema(), options.get(Options.DTYPE)),
                                Integer.parseInt(options.getOrDefault(Options.SLOTS, "8")));
                    }
                };
            }
        };
    }
}
