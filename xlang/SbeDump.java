// md-shootout, issue 25: SBE bytes read by Java. Prints every field of every SBE message in a
// file of packets written by md-shootout's `sbe` format (back to back), one JSON object a line,
// through the Java decoders that the SBE generator (sbe-all, -Dsbe.target.language=Java) makes
// from schemas/marketdata.xml. The Rust side (src/capability/cross_language/sbe.rs) generates and
// compiles those decoders into a scratch directory, runs this once for all packets and compares
// every field with the source.
//
// Usage: java -cp sbe-all.jar:CLASSES SbeDump [--acting] FILE DECODER...
//   DECODER: the generated decoder classes to dispatch to, by simple name (PacketHeaderDecoder,
//   TradeReportDecoder, ...); each is matched to SBE messages by its TEMPLATE_ID.
//   --acting: each line also says the version and block length the decoder acts on, taken from
//   the message header (`"@actingVersion"`, `"@actingBlockLength"`): the schema-evolution check
//   (src/capability/evolution/reference/sbe.rs) reads one version's bytes with the other's decoders.
//
// A field is found through the generated decoder's own metadata: every field has a static
// `<name>Id()` method, and `<name>EncodingOffset()` gives its order. Its value is read through the
// generated accessor: `get<Name>(byte[], int)` for a fixed-length char array (printed as its
// bytes, as text), `<name>()` otherwise (an enum by its name, a `char` by its byte value, an
// unsigned integer as unsigned).

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import md_shootout.MessageHeaderDecoder;

public final class SbeDump {
    public static void main(final String[] args) throws Exception {
        final boolean acting = args.length > 0 && args[0].equals("--acting");
        final int first = acting ? 1 : 0;
        final byte[] bytes = Files.readAllBytes(Path.of(args[first]));
        final Map<Integer, Layout> layouts = new HashMap<>();
        for (int i = first + 1; i < args.length; i++) {
            final Layout layout = new Layout(Class.forName("md_shootout." + args[i]));
            layouts.put(layout.templateId, layout);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final StringBuilder out = new StringBuilder();
        int offset = 0;
        while (offset < bytes.length) {
            if (offset + MessageHeaderDecoder.ENCODED_LENGTH > bytes.length) {
                throw new IllegalStateException("offset " + offset + ": message header cut short");
            }
            header.wrap(buffer, offset);
            final Layout layout = layouts.get(header.templateId());
            if (layout == null) {
                throw new IllegalStateException("offset " + offset + ": template id " + header.templateId() + " unknown");
            }
            final int end = offset + MessageHeaderDecoder.ENCODED_LENGTH + header.blockLength();
            if (end > bytes.length) {
                throw new IllegalStateException("offset " + offset + ": message block cut short");
            }
            layout.wrap.invoke(layout.decoder, buffer, offset, header);
            layout.print(out, acting ? header.blockLength() : -1);
            offset = end;
        }
        System.out.print(out);
    }

    /** One generated decoder class: its template id, an instance to wrap, its fields. */
    private static final class Layout {
        final int templateId;
        final String name;
        final Object decoder;
        final Method wrap;
        final Method actingVersion;
        final List<FieldReader> fields = new ArrayList<>();

        Layout(final Class<?> c) throws Exception {
            templateId = c.getField("TEMPLATE_ID").getInt(null);
            name = c.getSimpleName().substring(0, c.getSimpleName().length() - "Decoder".length());
            decoder = c.getConstructor().newInstance();
            wrap = c.getMethod("wrapAndApplyHeader", DirectBuffer.class, int.class, MessageHeaderDecoder.class);
            actingVersion = c.getMethod("actingVersion");
            for (final String field : fieldNames(c)) {
                fields.add(new FieldReader(c, field));
            }
        }

        /**
         * One line: {"message":"TradeReport","flags":0,...}; with the decoder's acting version and
         * the header's block length first where `blockLength` is not -1.
         */
        void print(final StringBuilder out, final int blockLength) throws Exception {
            out.append("{\"message\":\"").append(name).append('"');
            if (blockLength >= 0) {
                out.append(",\"@actingVersion\":").append(actingVersion.invoke(decoder));
                out.append(",\"@actingBlockLength\":").append(blockLength);
            }
            for (final FieldReader f : fields) {
                out.append(",\"").append(f.name).append("\":");
                f.append(out, decoder);
            }
            out.append("}\n");
        }
    }

    /** The message's fields, in the order of their offsets in the block. */
    private static List<String> fieldNames(final Class<?> c) throws Exception {
        final List<String> names = new ArrayList<>();
        for (final Method m : c.getMethods()) {
            final String n = m.getName();
            if (Modifier.isStatic(m.getModifiers()) && n.endsWith("Id") && m.getParameterCount() == 0
                && m.getReturnType() == int.class && n.length() > 2) {
                final String field = n.substring(0, n.length() - 2);
                if (has(c, field + "EncodingOffset")) {
                    names.add(field);
                }
            }
        }
        final Map<String, Integer> offsets = new HashMap<>();
        for (final String f : names) {
            offsets.put(f, (Integer) c.getMethod(f + "EncodingOffset").invoke(null));
        }
        names.sort(Comparator.comparing(offsets::get));
        return names;
    }

    private static boolean has(final Class<?> c, final String method) {
        try {
            c.getMethod(method);
            return true;
        } catch (final NoSuchMethodException e) {
            return false;
        }
    }

    /** Reads one field through the generated accessor. */
    private static final class FieldReader {
        final String name;
        /** `get<Name>(byte[], int)` for a char array, else `<name>()`. */
        final Method accessor;
        /** The array's length, or -1. */
        final int length;
        /** An unsigned 64-bit or 32-bit integer (its minimum value is 0), printed unsigned. */
        final boolean unsigned;

        FieldReader(final Class<?> c, final String field) throws Exception {
            name = field;
            if (has(c, field + "Length")) {
                length = (Integer) c.getMethod(field + "Length").invoke(null);
                final String getter = "get" + Character.toUpperCase(field.charAt(0)) + field.substring(1);
                accessor = c.getMethod(getter, byte[].class, int.class);
                unsigned = false;
            } else {
                length = -1;
                accessor = c.getMethod(field);
                unsigned = accessor.getReturnType() == long.class
                    && ((Number) c.getMethod(field + "MinValue").invoke(null)).longValue() == 0;
            }
        }

        void append(final StringBuilder out, final Object decoder) throws Exception {
            if (length >= 0) {
                final byte[] dst = new byte[length];
                accessor.invoke(decoder, dst, 0);
                text(out, dst);
                return;
            }
            final Object v = accessor.invoke(decoder);
            if (v instanceof Enum) {
                out.append('"').append(((Enum<?>) v).name()).append('"');
            } else if (v instanceof Byte) {
                out.append(((Byte) v) & 0xFF);
            } else if (unsigned) {
                out.append(Long.toUnsignedString((Long) v));
            } else {
                out.append(v);
            }
        }
    }

    /** Bytes as a JSON string, one character per byte. */
    private static void text(final StringBuilder out, final byte[] bytes) {
        out.append('"');
        for (final byte b : bytes) {
            final int ch = b & 0xFF;
            if (ch == '"' || ch == '\\') {
                out.append('\\').append((char) ch);
            } else if (ch >= 0x20 && ch < 0x7F) {
                out.append((char) ch);
            } else {
                out.append(String.format("\\u%04x", ch));
            }
        }
        out.append('"');
    }
}
