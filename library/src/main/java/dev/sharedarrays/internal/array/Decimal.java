package dev.sharedarrays.internal.array;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The decimal digits numpy prints for one finite float: {@code digits} (no leading or trailing
 * zeros; "0" for zero) times 10^({@code exponent} - digits.length() + 1), i.e. d.ddd × 10^exponent.
 * {@code negative} is the sign bit (numpy prints -0.0 as "-0.").
 */
record Decimal(boolean negative, String digits, int exponent) {

    /**
     * The shortest decimal that reads back as {@code v} in its own width (float32 when
     * {@code float32}), the closest to {@code v} when several are that short: numpy's (and
     * Python's) repr digits. Java's toString gives them, except that where one digit would do it
     * may give two (4.9E-324 for numpy's 5e-324), which is undone here.
     */
    static Decimal shortest(double v, boolean float32) {
        boolean negative = Double.doubleToRawLongBits(v) < 0;
        double a = Math.abs(v);
        if (a == 0) {
            return new Decimal(negative, "0", 0);
        }
        BigDecimal d = new BigDecimal(float32 ? Float.toString((float) a) : Double.toString(a)).stripTrailingZeros();
        if (d.precision() == 2) {
            BigDecimal exact = new BigDecimal(a);
            BigDecimal best = null;
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
                BigDecimal one = d.round(new MathContext(1, mode));
                if (readsBack(one, a, float32)
                        && (best == null || one.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                    best = one;
                }
            }
            if (best != null) {
                d = best.stripTrailingZeros();
            }
        }
        return of(negative, d);
    }

    /** This decimal with at most {@code places} digits after the point, the exact value of {@code v} rounded half-even if it had more. */
    Decimal cutFraction(double v, int places) {
        if (digits.length() - 1 - exponent <= places) {
            return this;
        }
        return of(negative, new BigDecimal(Math.abs(v)).setScale(places, RoundingMode.HALF_EVEN).stripTrailingZeros());
    }

    /** This decimal with at most {@code count} significant digits, the exact value of {@code v} rounded half-even if it had more. */
    Decimal cutDigits(double v, int count) {
        return digits.length() <= count ? this : exact(v, count);
    }

    /** The exact value of {@code v} rounded half-even to {@code count} significant digits (trailing zeros dropped). */
    static Decimal exact(double v, int count) {
        boolean negative = Double.doubleToRawLongBits(v) < 0;
        return of(negative, new BigDecimal(Math.abs(v)).round(new MathContext(count, RoundingMode.HALF_EVEN)).stripTrailingZeros());
    }

    /** The digits before the point, with the sign: "-12", "0". */
    String integerPart() {
        String sign = negative ? "-" : "";
        if (exponent < 0) {
            return sign + "0";
        }
        if (digits.length() > exponent) {
            return sign + digits.substring(0, exponent + 1);
        }
        return sign + digits + "0".repeat(exponent + 1 - digits.length());
    }

    /** The digits after the point, without trailing zeros: "" for a whole number. */
    String fractionPart() {
        if (exponent < 0) {
            return "0".repeat(-exponent - 1) + digits;
        }
        return digits.length() > exponent + 1 ? digits.substring(exponent + 1) : "";
    }

    private static boolean readsBack(BigDecimal d, double a, boolean float32) {
        String s = d.toString();
        return float32 ? Float.parseFloat(s) == (float) a : Double.parseDouble(s) == a;
    }

    private static Decimal of(boolean negative, BigDecimal d) {
        if (d.signum() == 0) {
            return new Decimal(negative, "0", 0);
        }
        String digits = d.unscaledValue().toString();
        return new Decimal(negative, digits, digits.length() - 1 - d.scale());
    }
}
