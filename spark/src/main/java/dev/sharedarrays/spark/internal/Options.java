package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayHandle;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The options of format("sharedarrays") (their meaning is on {@link dev.sharedarrays.spark.SharedArraysSource}). */
public final class Options {
    public static final String PATH = "path";
    public static final String FLIGHT = "flight";
    public static final String TOKEN = "token";
    public static final String HOST = "host";
    public static final String PARTITIONS = "partitions";
    public static final String DTYPE = "dtype";
    public static final String SHAPE = "shape";
    public static final String LIFETIME = "lifetime";
    public static final String BACKEND = "backend";
    public static final String SLOTS = "slots";
    public static final String MAX_MESSAGES = "maxMessagesPerBatch";
    public static final String QUEUE_PREFIX = "queue/";

    private Options() {
    }

    /** load(x) / save(x) / start(x), which Spark passes as "path". */
    public static String path(CaseInsensitiveStringMap options) {
        String p = options.get(PATH);
        if (p == null || p.isBlank()) {
            throw new IllegalArgumentException("format(\"sharedarrays\") needs the array's name or handle: load(\"grid\"),"
                    + " load(\"shm://grid?id=...\"), or load(\"queue/frames\") (readStream) / save(\"grid\")");
        }
        return p.strip();
    }

    /** A name ("grid") or a handle ("shm://grid?id=...", "file:///data/grid.npy") as a handle. */
    public static ArrayHandle handle(String path) {
        return ArrayHandle.parse(path.contains("://") ? path : "shm://" + path);
    }

    public static boolean isQueue(String path) {
        return path.startsWith(QUEUE_PREFIX);
    }
}
