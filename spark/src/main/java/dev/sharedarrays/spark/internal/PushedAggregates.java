package dev.sharedarrays.spark.internal;

import dev.sharedarrays.DType;
import dev.sharedarrays.U64;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * An aggregation Spark pushed into an array scan: COUNT(*), COUNT(c), SUM(c) of floating columns,
 * MIN(c) and MAX(c) of numeric columns, without GROUP BY. Each partition computes its partial
 * results in one pass over its rows' memory (every column at once, where a row is, rather than one
 * column after another over the whole of it) and returns them as one row; Spark merges the
 * partitions' rows. SUM of an integer column stays Spark's (its result is exact, an accumulation
 * in double would not be), as do unsigned 64-bit and Boolean columns.
 *
 * @param kinds   per aggregate: COUNT, SUM, MIN or MAX
 * @param columns per aggregate: its element column (0-based after index), or -1 for COUNT(*)
 */
record PushedAggregates(int[] kinds, int[] columns) implements Serializable {
    static final int COUNT = 0;
    static final int SUM = 1;
    static final int MIN = 2;
    static final int MAX = 3;

    /** The aggregation as ours, or null if any of it is not pushed (then Spark does all of it). */
    static PushedAggregates of(Aggregation agg, ArrayColumns cols) {
        if (agg.groupByExpressions().length > 0 || cols.asArray()) {
            return null;
        }
        DType<?> d = cols.dtype();
        if (d.isBool() || d == U64.TYPE) {
            return null;
        }
        List<String> names = List.of(cols.schema().fieldNames());
        int n = agg.aggregateExpressions().length;
        int[] kinds = new int[n];
        int[] columns = new int[n];
        for (int i = 0; i < n; i++) {
            AggregateFunc f = agg.aggregateExpressions()[i];
            Expression e;
            if (f instanceof CountStar) {
                kinds[i] = COUNT;
                columns[i] = -1;
                continue;
            } else if (f instanceof Count c && !c.isDistinct()) {
                kinds[i] = COUNT;
                e = c.column();
            } else if (f instanceof Sum s && !s.isDistinct() && d.isFloatingPoint()) {
                kinds[i] = SUM;
                e = s.column();
            } else if (f instanceof Min m) {
                kinds[i] = MIN;
                e = m.column();
            } else if (f instanceof Max m) {
                kinds[i] = MAX;
                e = m.column();
            } else {
                return null;
            }
            if (!(e instanceof NamedReference r) || r.fieldNames().length != 1) {
                return null;
            }
            int at = names.indexOf(r.fieldNames()[0]);
            if (at < 1) {
                return null; // index, or no column of ours
            }
            columns[i] = at - 1;
        }
        return new PushedAggregates(kinds, columns);
    }

    /** The columns of a partition's row of partial results. */
    StructType schema(ArrayColumns cols) {
        List<StructField> f = new ArrayList<>();
        for (int i = 0; i < kinds.length; i++) {
            DataType t = switch (kinds[i]) {
                case COUNT -> DataTypes.LongType;
                case SUM -> DataTypes.DoubleType;
                default -> ArrayColumns.sparkType(cols.dtype());
            };
            f.add(DataTypes.createStructField("agg" + i, t, kinds[i] != COUNT));
        }
        return new StructType(f.toArray(new StructField[0]));
    }

    /** The partial results of {@code rows} rows of {@code rowBytes} at {@code m}, in one pass. */
    GenericInternalRow compute(MemorySegment m, long rows, ArrayColumns cols) {
        DType<?> d = cols.dtype();
        int width = cols.elementColumns();
        long rowBytes = cols.rowBytes();
        double[] sum = new double[width];
        double[] min = new double[width];
        double[] max = new double[width];
        long[] lmin = new long[width];
        long[] lmax = new long[width];
        java.util.Arrays.fill(min, Double.POSITIVE_INFINITY);
        java.util.Arrays.fill(max, Double.NEGATIVE_INFINITY);
        java.util.Arrays.fill(lmin, Long.MAX_VALUE);
        java.util.Arrays.fill(lmax, Long.MIN_VALUE);
        boolean[] nan = new boolean[width];
        if (d.isFloatingPoint() && sumsOnly()) {
            // the common query (totals, means): a row's columns added into their sums, nothing else
            if (d.itemSize() == 8) {
                for (long r = 0, base = 0; r < rows; r++, base += rowBytes) {
                    for (int c = 0; c < width; c++) {
                        sum[c] += m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, base + 8L * c);
                    }
                }
            } else {
                for (long r = 0, base = 0; r < rows; r++, base += rowBytes) {
                    for (int c = 0; c < width; c++) {
                        sum[c] += m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, base + 4L * c);
                    }
                }
            }
        } else if (d.isFloatingPoint()) {
            boolean f64 = d.itemSize() == 8;
            for (long r = 0; r < rows; r++) {
                long base = r * rowBytes;
                for (int c = 0; c < width; c++) {
                    double v = f64 ? m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, base + 8L * c)
                            : m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, base + 4L * c);
                    sum[c] += v;
                    // Spark orders NaN above every number: it is the MAX, and the MIN only of NaNs alone
                    if (v != v) {
                        nan[c] = true;
                    } else {
                        min[c] = Math.min(min[c], v);
                        max[c] = Math.max(max[c], v);
                    }
                }
            }
        } else {
            SegmentVector[] vs = new SegmentVector[width];
            for (int c = 0; c < width; c++) {
                vs[c] = SegmentVector.scalar(m, rowBytes, c, d);
            }
            for (long r = 0; r < rows; r++) {
                for (int c = 0; c < width; c++) {
                    long v = longAt(vs[c], (int) r, d);
                    lmin[c] = Math.min(lmin[c], v);
                    lmax[c] = Math.max(lmax[c], v);
                }
            }
        }
        Object[] out = new Object[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            int c = columns[i];
            out[i] = switch (kinds[i]) {
                case COUNT -> rows;
                case SUM -> rows == 0 ? null : sum[c];
                case MIN -> rows == 0 ? null : d.isFloatingPoint() ? boxed(d, nan[c] && min[c] == Double.POSITIVE_INFINITY ? Double.NaN : min[c])
                        : boxed(d, lmin[c]);
                default -> rows == 0 ? null : d.isFloatingPoint() ? boxed(d, nan[c] ? Double.NaN : max[c]) : boxed(d, lmax[c]);
            };
        }
        return new GenericInternalRow(out);
    }

    /** Whether every aggregate is a SUM or a COUNT: no minima or maxima to keep. */
    private boolean sumsOnly() {
        for (int k : kinds) {
            if (k != SUM && k != COUNT) {
                return false;
            }
        }
        return true;
    }

    private static long longAt(SegmentVector v, int r, DType<?> d) {
        return switch (d.itemSize()) {
            case 1 -> d.isUnsigned() ? v.getShort(r) : v.getByte(r);
            case 2 -> d.isUnsigned() ? v.getInt(r) : v.getShort(r);
            case 4 -> d.isUnsigned() ? v.getLong(r) : v.getInt(r);
            default -> v.getLong(r);
        };
    }

    /** A value as the column's Spark type holds it. */
    private static Object boxed(DType<?> d, double v) {
        return d.itemSize() == 8 ? (Object) v : (Object) (float) v;
    }

    private static Object boxed(DType<?> d, long v) {
        DataType t = ArrayColumns.sparkType(d);
        if (t == DataTypes.ByteType) {
            return (byte) v;
        } else if (t == DataTypes.ShortType) {
            return (short) v;
        } else if (t == DataTypes.IntegerType) {
            return (int) v;
        }
        return v;
    }
}
