import java.util.Random;

/** Prints `d <hex bits> <Double.toString>` and `f <hex bits> <Float.toString>` lines. */
public class JavaFloatStrings {
    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int n = Integer.parseInt(args[1]);
        Random r = new Random(seed);
        StringBuilder out = new StringBuilder();
        // Edges first: powers of two and ten, extremes, values seen in Flink's output.
        double[] ds = {Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 1e23, 2e23, 1e22, 9007199254740993.0,
            0.1, 0.3, 1.0E-5, 1.0E7, 9999999.999, 0.001, 9.99e-4, 4.35, 1.15, 2.675, 1.005, 123456789.125, 1.5E10};
        for (double d : ds) out.append("d ").append(Long.toHexString(Double.doubleToLongBits(d))).append(' ').append(Double.toString(d)).append('\n');
        float[] fs = {Float.MIN_VALUE, Float.MAX_VALUE, Float.MIN_NORMAL, 1.5E10f, 123456789.125f, 3.4E38f, 1.0E-5f, 0.1f, 1.15f, 9.999999e-4f, 1e10f, 16777216f, 33554432f, 33554436f};
        for (float f : fs) out.append("f ").append(Integer.toHexString(Float.floatToIntBits(f))).append(' ').append(Float.toString(f)).append('\n');
        for (int e = -1074; e <= 1023; e += 7) {
            double d = Math.scalb(1.0, e);
            out.append("d ").append(Long.toHexString(Double.doubleToLongBits(d))).append(' ').append(Double.toString(d)).append('\n');
        }
        for (int e = -149; e <= 127; e += 3) {
            float f = Math.scalb(1.0f, e);
            out.append("f ").append(Integer.toHexString(Float.floatToIntBits(f))).append(' ').append(Float.toString(f)).append('\n');
        }
        for (int e = -323; e <= 308; e += 5) {
            double d = Double.parseDouble("1e" + e);
            out.append("d ").append(Long.toHexString(Double.doubleToLongBits(d))).append(' ').append(Double.toString(d)).append('\n');
        }
        for (int e = -45; e <= 38; e += 2) {
            float f = Float.parseFloat("1e" + e);
            out.append("f ").append(Integer.toHexString(Float.floatToIntBits(f))).append(' ').append(Float.toString(f)).append('\n');
        }
        for (int i = 0; i < n; i++) {
            long bits;
            switch (i % 4) {
                case 0: bits = r.nextLong(); break;                       // any double
                case 1: bits = Double.doubleToLongBits(r.nextInt(2000000) / Math.pow(10, r.nextInt(12))); break; // short decimals
                case 2: bits = Double.doubleToLongBits((double) r.nextLong() / (1L << r.nextInt(63))); break;
                default: bits = r.nextLong() & 0x800FFFFFFFFFFFFFL; break; // subnormals
            }
            double d = Double.longBitsToDouble(bits);
            if (!Double.isNaN(d)) out.append("d ").append(Long.toHexString(bits)).append(' ').append(Double.toString(d)).append('\n');
            int fbits;
            switch (i % 4) {
                case 0: fbits = r.nextInt(); break;
                case 1: fbits = Float.floatToIntBits(r.nextInt(2000000) / (float) Math.pow(10, r.nextInt(9))); break;
                case 2: fbits = Float.floatToIntBits((float) ((double) r.nextLong() / (1L << r.nextInt(63)))); break;
                default: fbits = r.nextInt() & 0x807FFFFF; break;
            }
            float f = Float.intBitsToFloat(fbits);
            if (!Float.isNaN(f)) out.append("f ").append(Integer.toHexString(fbits)).append(' ').append(Float.toString(f)).append('\n');
        }
        System.out.print(out);
    }
}
