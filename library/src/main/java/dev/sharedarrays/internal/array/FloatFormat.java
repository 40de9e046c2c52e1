package dev.sharedarrays.internal.array;

/**
 * numpy's default format of the floats of one array (arrayprint.FloatingFormat with precision 8,
 * floatmode 'maxprec', no suppression): every element gets the same layout, chosen from the
 * finite values shown. Positional ({@code [0.1 0.25 1.  ]}) unless a nonzero magnitude is
 * {@code >= 1e8} (1e6 for float32), {@code < 1e-4}, or the largest is over 1000 times the
 * smallest; then scientific with one mantissa precision ({@code [1.5e-05 1.0e+00]}). Digits are
 * the shortest that read back in the element's own width, cut to 8 places.
 */
final class FloatFormat {
    private static final int PRECISION = 8;

    private final boolean float32;
    private final boolean scientific;
    private int padLeft;
    private int padRight;
    /** Scientific only: mantissa fraction digits and exponent digits. */
    private int places;
    private int exponentDigits;

    /** The format of an array whose shown elements are {@code values} (float32 values widened exactly when {@code float32}). */
    FloatFormat(double[] values, boolean float32) {
        this.float32 = float32;
        this.scientific = chooseScientific(values, float32);
        boolean anyNonFinite = false;
        boolean negativeInfinity = false;
        for (double v : values) {
            if (!Double.isFinite(v)) {
                anyNonFinite = true;
                negativeInfinity |= v == Double.NEGATIVE_INFINITY;
                continue;
            }
            Decimal d = decimal(v);
            padLeft = Math.max(padLeft, integerPart(d).length());
            if (scientific) {
                places = Math.max(places, d.digits().length() - 1);
                exponentDigits = Math.max(exponentDigits, Math.max(2, Integer.toString(Math.abs(d.exponent())).length()));
            } else {
                padRight = Math.max(padRight, d.fractionPart().length());
            }
        }
        if (scientific) {
            padRight = exponentDigits + 2 + places;
        }
        if (anyNonFinite) {
            // wide enough for "nan", "inf" or "-inf" in the same columns as the numbers
            padLeft = Math.max(padLeft, 3 + (negativeInfinity ? 1 : 0) - (padRight + 1));
        }
    }

    String format(double v) {
        if (!Double.isFinite(v)) {
            String s = Double.isNaN(v) ? "nan" : v < 0 ? "-inf" : "inf";
            return " ".repeat(Math.max(0, padLeft + padRight + 1 - s.length())) + s;
        }
        Decimal d = decimal(v);
        if (scientific && d.digits().length() - 1 < places) {
            // numpy's min_digits: the further digits are the exact value's, not zeros (float32 shows them)
            d = Decimal.exact(v, places + 1);
        }
        String integer = integerPart(d);
        StringBuilder sb = new StringBuilder();
        sb.append(" ".repeat(Math.max(0, padLeft - integer.length()))).append(integer).append('.');
        if (scientific) {
            String mantissa = d.digits().substring(1);
            sb.append(mantissa).append("0".repeat(places - mantissa.length()));
            String exponent = Integer.toString(Math.abs(d.exponent()));
            sb.append('e').append(d.exponent() < 0 ? '-' : '+').append("0".repeat(Math.max(0, exponentDigits - exponent.length())))
                    .append(exponent);
        } else {
            String fraction = d.fractionPart();
            sb.append(fraction).append(" ".repeat(padRight - fraction.length()));
        }
        return sb.toString();
    }

    private String integerPart(Decimal d) {
        return scientific ? (d.negative() ? "-" : "") + d.digits().charAt(0) : d.integerPart();
    }

    private Decimal decimal(double v) {
        Decimal d = Decimal.shortest(v, float32);
        return scientific ? d.cutDigits(v, PRECISION + 1) : d.cutFraction(v, PRECISION);
    }

    /** arrayprint's rule, in the element's own arithmetic (numpy compares a float32 with float32 constants). */
    private static boolean chooseScientific(double[] values, boolean float32) {
        double max = 0;
        double min = Double.POSITIVE_INFINITY;
        for (double v : values) {
            double a = Math.abs(v);
            if (Double.isFinite(a) && a != 0) {
                max = Math.max(max, a);
                min = Math.min(min, a);
            }
        }
        if (max == 0) {
            return false;
        }
        if (float32) {
            float fmax = (float) max;
            float fmin = (float) min;
            return fmax >= 1e6f || fmin < 1e-4f || fmax / fmin > 1000f;
        }
        return max >= 1e8 || min < 1e-4 || max / min > 1000.0;
    }
}
