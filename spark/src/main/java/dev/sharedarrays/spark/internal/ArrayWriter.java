package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.DType;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.SegmentExistsException;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code df.write.format("sharedarrays").save(name)}: a new shared array holding the rows in the
 * DataFrame's order. Each task writes its partition's rows ({@link RowLayout}) into parts, shm
 * arrays of up to {@link #PART_BYTES} named after this write; the driver then makes the array
 * (total rows x row width), copies the parts into it in partition order and removes them. The
 * array is made only once every task succeeded, and removed again if the copy fails; the parts
 * of failed, retried or killed tasks are found by their names and removed whatever happens (after
 * the tasks of a failed job stopped), so a failed job leaves nothing behind. A part is its
 * executor's (lifetime owner) and stays open there until the driver removed it: an executor that
 * dies leaves its parts to the next sweep. The executors must run on the driver's host (the parts are
 * shm arrays there): an executor on another host is a clear error.
 *
 * <p>Options: {@code dtype} (numpy's or ours, default from the columns), {@code lifetime}
 * ({@code persistent}, the default: the array outlives the job, as a saved file does;
 * {@code owner}: removed when the driver's JVM exits; {@code shared}), {@code backend} ({@code shm},
 * the default, or {@code file} with a path). Modes: error if exists (the default), ignore,
 * overwrite (the old array is removed first); append is refused (an array's shape is fixed).
 */
public final class ArrayWriter {
    /** A part's size, about. */
    static final long PART_BYTES = 64L << 20;
    private static final String PART = "sa-part-";
    /** This JVM's parts, open until the driver removed their files (a task then lets go of them). */
    private static final List<SharedNDArray<?>> OPEN_PARTS = new ArrayList<>();

    private ArrayWriter() {
    }

    /** One part: rows of partition {@code partition}, the {@code seq}-th of its parts. */
    record Part(int partition, int seq, String handle, long rows, int width, String host) implements Serializable {
    }

    public static void write(Dataset<Row> data, CaseInsensitiveStringMap options, SaveMode mode) {
        String path = Options.path(options);
        ArrayHandle target = Options.handle(path);
        if (mode == SaveMode.Append) {
            throw new IllegalArgumentException("cannot append to a shared array: its shape is fixed. Write with mode(\"overwrite\") to"
                    + " replace " + path + ", or save under another name");
        }
        boolean exists = exists(target);
        if (exists && mode == SaveMode.Ignore) {
            return;
        }
        if (exists && mode == SaveMode.ErrorIfExists) {
            throw new SegmentExistsException("array " + path + " exists; write with mode(\"overwrite\") to replace it");
        }
        RowLayout layout = RowLayout.of(data.schema(), options.get(Options.DTYPE));
        CreateOptions create = createOptions(options, target);
        String prefix = PART + UUID.randomUUID().toString().replace("-", "").substring(0, 16) + "-";
        List<Part> parts = new ArrayList<>();
        SparkContext sc = data.sparkSession().sparkContext();
        boolean written = false;
        sc.setJobGroup(prefix, "sharedarrays save " + path, true);
        try {
            parts.addAll(data.queryExecution().toRdd().toJavaRDD()
                    .mapPartitionsWithIndex(new PartWriter(layout, prefix), false).collect());
            written = true;
        } finally {
            sc.clearJobGroup();
            if (!written) {
                // a failed job's other tasks run on a while: stop them, and let them finish, before the parts go
                sc.cancelJobGroup(prefix);
                awaitTasks(sc, prefix);
                removeParts(prefix);
                closeRemovedParts();
            }
        }
        try {
            parts.sort(Comparator.comparingInt(Part::partition).thenComparingInt(Part::seq));
            assemble(parts, layout, path, target, create, mode == SaveMode.Overwrite && exists);
        } finally {
            removeParts(prefix);
            closeRemovedParts();
        }
    }

    /** Closes this JVM's parts whose files the driver removed (their mappings go). */
    private static void closeRemovedParts() {
        synchronized (OPEN_PARTS) {
            OPEN_PARTS.removeIf(p -> {
                boolean gone = p.path().map(f -> !java.nio.file.Files.exists(f)).orElse(true);
                if (gone) {
                    p.close();
                }
                return gone;
            });
        }
    }

    /** Until no task of the job group runs (30 s at most). */
    private static void awaitTasks(SparkContext sc, String group) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean running = false;
            for (int job : sc.statusTracker().getJobIdsForGroup(group)) {
                var info = sc.statusTracker().getJobInfo(job);
                if (info.isEmpty()) {
                    continue;
                }
                for (int stage : info.get().stageIds()) {
                    var s = sc.statusTracker().getStageInfo(stage);
                    running |= s.isDefined() && s.get().numActiveTasks() > 0;
                }
            }
            if (!running) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean exists(ArrayHandle h) {
        try {
            SharedArrays.inspect(h);
            return true;
        } catch (SegmentNotFoundException e) {
            return false;
        }
    }

    private static CreateOptions createOptions(CaseInsensitiveStringMap options, ArrayHandle target) {
        CreateOptions c = CreateOptions.defaults();
        String lifetime = options.getOrDefault(Options.LIFETIME, "persistent").toUpperCase(Locale.ROOT);
        try {
            c = c.lifetime(Lifetime.valueOf(lifetime));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option lifetime is owner, shared or persistent, not " + options.get(Options.LIFETIME));
        }
        if (target instanceof ArrayHandle.File f) {
            return c.file(f.path());
        }
        if (options.containsKey(Options.BACKEND)) {
            c = c.backend(Backend.parse(options.get(Options.BACKEND)));
        } else {
            c = c.backend(Backend.SHM);
        }
        return c.name(((ArrayHandle.Shm) target).name());
    }

    /** The array of all parts' rows, made and filled here; removed again if anything fails. */
    private static void assemble(List<Part> parts, RowLayout layout, String path, ArrayHandle target, CreateOptions create, boolean replace) {
        long total = parts.stream().mapToLong(Part::rows).sum();
        if (total == 0) {
            throw new IllegalArgumentException("the DataFrame has no rows; a shared array has at least one");
        }
        int width = parts.stream().filter(p -> p.rows() > 0).findFirst().orElseThrow().width();
        for (Part p : parts) {
            if (p.rows() > 0 && p.width() != width) {
                throw new IllegalArgumentException("column " + layout.names()[0] + " has rows of " + width + " and of " + p.width()
                        + " elements; a shared array's rows are all one length");
            }
        }
        boolean oneValue = !layout.array() && layout.columns().length == 1;
        long[] shape = oneValue ? new long[] {total} : new long[] {total, width};
        if (replace) {
            SharedArrays.remove(target, true);
        }
        DType<?> dtype = layout.dtype();
        SharedNDArray<?> out = SharedArrays.createAny(dtype, shape, create);
        boolean ok = false;
        try {
            long rowBytes = (long) width * dtype.itemSize();
            MemorySegment dst = out.data();
            long at = 0;
            for (Part p : parts) {
                if (p.rows() == 0) {
                    continue;
                }
                SharedNDArray<?> part;
                try {
                    part = SharedArrays.attach(ArrayHandle.parse(p.handle()));
                } catch (SegmentNotFoundException e) {
                    throw new IllegalStateException("partition " + p.partition() + " was written on host " + p.host() + ", not on the"
                            + " driver's host: writing a shared array needs the executors on the driver's host (local mode, or a"
                            + " cluster's executors there)", e);
                }
                try (part) {
                    MemorySegment.copy(part.data(), 0, dst, at, p.rows() * rowBytes);
                }
                at += p.rows() * rowBytes;
            }
            ok = true;
        } finally {
            if (ok) {
                out.close();
            } else {
                out.destroy();
            }
        }
    }

    /** Removes every part of this write in the shm directory, of tasks that succeeded, failed or were killed. */
    private static void removeParts(String prefix) {
        for (SegmentInfo i : SharedArrays.list()) {
            Path p = i.path();
            if (p != null && p.getFileName().toString().startsWith(prefix)) {
                try {
                    SharedArrays.remove(i.handle(), true);
                } catch (RuntimeException e) {
                    // gone meanwhile
                }
            }
        }
    }

    /** A task's writing of its partition into parts (on the executor). */
    static final class PartWriter implements Function2<Integer, Iterator<InternalRow>, Iterator<Part>> {
        private static final long serialVersionUID = 1L;
        private final RowLayout layout;
        private final String prefix;

        PartWriter(RowLayout layout, String prefix) {
            this.layout = layout;
            this.prefix = prefix;
        }

        @Override
        public Iterator<Part> call(Integer partition, Iterator<InternalRow> rows) {
            closeRemovedParts(); // the parts of earlier writes this executor made
            List<Part> out = new ArrayList<>();
            List<SharedNDArray<?>> made = new ArrayList<>();
            boolean ok = false;
            TaskContext task = TaskContext.get();
            long attempt = task == null ? 0 : task.taskAttemptId();
            DType<?> dtype = layout.dtype();
            try {
                SharedNDArray<?> part = null;
                int width = -1;
                long perPart = 0;
                long n = 0;
                long rowBytes = 0;
                while (rows.hasNext()) {
                    InternalRow row = rows.next();
                    if (width < 0) {
                        width = layout.width(row);
                        rowBytes = Math.max(1, (long) width * dtype.itemSize());
                        perPart = Math.max(1, PART_BYTES / rowBytes);
                    }
                    if (part == null || n == perPart) {
                        if (part != null) {
                            out.add(new Part(partition, out.size(), part.handle().toString(), n, width, Hosts.name()));
                        }
                        part = SharedArrays.createAny(dtype, new long[] {perPart, width}, CreateOptions.defaults().backend(Backend.SHM)
                                .lifetime(Lifetime.OWNER).name(prefix + partition + "-" + attempt + "-" + out.size()));
                        made.add(part);
                        n = 0;
                    }
                    try {
                        layout.write(row, width, part.data().asSlice(n * rowBytes, rowBytes));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(e.getMessage() + " (partition " + partition + ", row " + (out.size() * perPart + n)
                                + " of it)", e);
                    }
                    n++;
                }
                if (part != null) {
                    out.add(new Part(partition, out.size(), part.handle().toString(), n, width, Hosts.name()));
                }
                ok = true;
                return out.iterator();
            } finally {
                for (SharedNDArray<?> p : made) {
                    if (ok) {
                        synchronized (OPEN_PARTS) {
                            OPEN_PARTS.add(p); // kept open (an owner's close removes it) until the driver removed it
                        }
                    } else {
                        p.destroy();
                    }
                }
            }
        }
    }
}
