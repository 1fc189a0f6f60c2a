/// Text as the inside of an XML or HTML element or quoted attribute: the one escaper of the pages,
/// the plots and the podcast feed.
public enum MarkupText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references (`&#39;` for the apostrophe,
    /// which XML and HTML both read), and the control characters XML 1.0 does not allow (all under
    /// U+0020 but tab, newline and carriage return) as spaces.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r": out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
