/// Text as the inside of a JSON string: the one escaper of the cue sheets and the pages.
public enum JSONString {
    /// `text` with what JSON needs escaped (quotes, backslashes, control characters as `\n` or
    /// `\u00XX`). With `scriptSafe`, also `<`, `>`, `&`, U+2028 and U+2029, so that the string can
    /// stand inside an HTML `<script>` element (no `</script>` can close it early).
    public static func escaped(_ text: String, scriptSafe: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "<" where scriptSafe, ">" where scriptSafe, "&" where scriptSafe: out += hexEscape(ch.value)
            default:
                if ch.value < 0x20 || (scriptSafe && (ch.value == 0x2028 || ch.value == 0x2029)) {
                    out += hexEscape(ch.value)
                } else {
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out
    }

    /// `\u` and four lowercase hex digits.
    private static func hexEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
