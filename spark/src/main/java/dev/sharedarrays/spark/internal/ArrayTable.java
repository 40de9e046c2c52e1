package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.flight.internal.Remote;
import dev.sharedarrays.flight.internal.TensorSchema;
import java.net.URI;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A shared array as a table ({@link ArrayColumns} says its columns), read in batches. Resolved on
 * the driver when first asked for its schema or a scan (not when Spark only asks what it can do:
 * a save of an array that does not exist yet gets this table too): the array on this host (its
 * handle then carries its id, so that an executor finds this very array), or, if it is not here
 * and option {@code flight} names its host's bridge, the array as that bridge lists it.
 */
public final class ArrayTable implements SupportsRead {
    private final CaseInsensitiveStringMap options;
    private Resolved resolved;

    /** What the options name, once looked up. */
    private record Resolved(String handle, String arrayName, ArrayColumns columns, String host, boolean keepMapped) {
    }

    public ArrayTable(CaseInsensitiveStringMap options) {
        this.options = options;
    }

    private synchronized Resolved resolved() {
        if (resolved == null) {
            resolved = resolve(options);
        }
        return resolved;
    }

    private static Resolved resolve(CaseInsensitiveStringMap options) {
        String path = Options.path(options);
        String flight = options.get(Options.FLIGHT);
        ArrayHandle h = Options.handle(path);
        String name = h instanceof ArrayHandle.Shm s ? s.name() : null;
        SegmentInfo info;
        try {
            info = SharedArrays.inspect(h);
        } catch (SegmentNotFoundException e) {
            if (flight == null || name == null) {
                throw new IllegalArgumentException("no array " + path + " on this host (" + e.getMessage() + "); for an array on another"
                        + " host, set option(\"flight\", \"grpc+tcp://<its host>:8815\") where sharedarrays serve runs", e);
            }
            ArrayColumns cols = remoteColumns(flight, options.get(Options.TOKEN), name);
            return new Resolved("shm://" + name, name, cols, options.getOrDefault(Options.HOST, URI.create(flight).getHost()), false);
        }
        if (info.kind() != SegmentInfo.Kind.ARRAY) {
            throw new IllegalArgumentException(path + " is a " + info.kind().name().toLowerCase() + ", not an array; read a queue with"
                    + " spark.readStream.format(\"sharedarrays\").load(\"queue/<name>\")");
        }
        return new Resolved(info.handle().toString(), name != null ? name : String.valueOf(info.path().getFileName()),
                ArrayColumns.of(info.dtype(), info.shape()), options.getOrDefault(Options.HOST, Hosts.name()),
                info.lifetime() == Lifetime.OWNER);
    }

    private static ArrayColumns remoteColumns(String flight, String token, String name) {
        try (Remote r = new Remote(flight, token, null)) {
            var info = r.client.getInfo(org.apache.arrow.flight.FlightDescriptor.path("array", name), r.arrowOptions());
            TensorSchema s = TensorSchema.of(info.getSchemaOptional().orElseThrow());
            return ArrayColumns.of(s.dtype(), s.shape());
        } catch (org.apache.arrow.flight.FlightRuntimeException e) {
            throw new IllegalArgumentException("array " + name + " is not on this host, and the bridge at " + flight + " answered "
                    + e.status().code() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        int min = options.containsKey(Options.PARTITIONS) ? Integer.parseInt(options.get(Options.PARTITIONS))
                : SparkSession.active().sparkContext().defaultParallelism();
        return new ArrayScan(this, Math.max(1, min));
    }

    @Override
    public String name() {
        return "sharedarrays:" + Options.path(options);
    }

    @Override
    public StructType schema() {
        return resolved().columns().schema();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.BATCH_READ);
    }

    ArrayColumns geometry() {
        return resolved().columns();
    }

    String handle() {
        return resolved().handle();
    }

    String arrayName() {
        return resolved().arrayName();
    }

    boolean keepMapped() {
        return resolved().keepMapped();
    }

    String host() {
        return resolved().host();
    }

    String flight() {
        return options.get(Options.FLIGHT);
    }

    String token() {
        return options.get(Options.TOKEN);
    }
}
