package dev.sharedarrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import java.lang.foreign.MemorySegment;

/**
 * A seeded generator of random F64 arrays, made by {@link NDArrays#random(long)}: numpy's
 * {@code default_rng(seed)} habit, with its own stream. The values depend on the seed and the
 * sequence of calls alone, on any JVM and platform:
 * <ul>
 * <li>the stream is SplitMix64 (Steele, Lea and Flood 2014; the generator behind
 *     {@code java.util.SplittableRandom}), written out here so no JDK change can alter it;</li>
 * <li>a uniform double in [0, 1) is the top 53 bits of the next 64-bit value times 2^-53;</li>
 * <li>normals come in pairs by the Box-Muller transform of two uniforms {@code u, v}:
 *     {@code sqrt(-2 ln(1 - u)) * cos(2 pi v)} and {@code ... * sin(2 pi v)}, with
 *     {@link StrictMath} so every JVM computes the same bits (an odd count drops the last
 *     pair's sine).</li>
 * </ul>
 * The streams are not numpy's (numpy's PCG64 and ziggurat are not reproduced). Results are new
 * process-local arrays. Methods are synchronized: threads that share a generator draw from one
 * stream, in the order they call.
 */
public final class ArrayRandom {
    private long state;

    ArrayRandom(long seed) {
        this.state = seed;
    }

    /** Uniform values in [0, 1), numpy's {@code rng.random(shape)}. */
    public SharedNDArray<F64> uniform(long... shape) {
        return uniform(0, 1, shape);
    }

    /**
     * Uniform values in [low, high) ({@code low + (high - low) * u}, as numpy's {@code rng.uniform}).
     *
     * @throws IllegalArgumentException if {@code low} or {@code high} is not finite
     */
    public synchronized SharedNDArray<F64> uniform(double low, double high, long[] shape) {
        if (!Double.isFinite(low) || !Double.isFinite(high)) {
            throw new IllegalArgumentException("uniform(" + low + ", " + high + "): bounds must be finite");
        }
        SharedNDArray<F64> out = SharedNDArray.of(ArrayCore.empty(F64.TYPE, shape.clone()));
        MemorySegment d = out.data();
        long n = out.size();
        double range = high - low;
        for (long i = 0; i < n; i++) {
            d.setAtIndex(JAVA_DOUBLE, i, low + range * nextDouble());
        }
        return out;
    }

    /** Standard normal values (mean 0, standard deviation 1), numpy's {@code rng.standard_normal(shape)}. */
    public SharedNDArray<F64> normal(long... shape) {
        return normal(0, 1, shape);
    }

    /**
     * Normal values of mean {@code mean} and standard deviation {@code std} ({@code mean + std * z}),
     * numpy's {@code rng.normal(loc, scale, shape)}.
     *
     * @throws IllegalArgumentException if {@code mean} is not finite, or {@code std} is negative or not finite
     */
    public synchronized SharedNDArray<F64> normal(double mean, double std, long[] shape) {
        if (!Double.isFinite(mean) || !Double.isFinite(std) || std < 0) {
            throw new IllegalArgumentException("normal(" + mean + ", " + std + "): the mean must be finite and the standard "
                    + "deviation finite and >= 0");
        }
        SharedNDArray<F64> out = SharedNDArray.of(ArrayCore.empty(F64.TYPE, shape.clone()));
        MemorySegment d = out.data();
        long n = out.size();
        for (long i = 0; i < n; i += 2) {
            double r = StrictMath.sqrt(-2 * StrictMath.log(1 - nextDouble()));
            double angle = 2 * StrictMath.PI * nextDouble();
            d.setAtIndex(JAVA_DOUBLE, i, mean + std * (r * StrictMath.cos(angle)));
            if (i + 1 < n) {
                d.setAtIndex(JAVA_DOUBLE, i + 1, mean + std * (r * StrictMath.sin(angle)));
            }
        }
        return out;
    }

    private double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    private long nextLong() {
        long z = state += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
