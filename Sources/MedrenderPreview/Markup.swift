import MedrenderCore

/// Text and numbers as SVG, HTML and JSON want them.
enum Markup {
    /// `text` safe inside an element or a quoted attribute.
    static func escape(_ text: String) -> String { MarkupText.escaped(text) }

    /// `text` as a JSON string, quotes included, safe inside a `<script>` element (no `</`).
    static func jsonString(_ text: String) -> String {
        "\"" + JSONString.escaped(text, scriptSafe: true) + "\""
    }

    /// A number with at most `decimals` decimals, no trailing zeros, no exponent: `12.5`, `3`, `-0.25`.
    static func number(_ value: Double, decimals: Int = 2) -> String {
        guard value.isFinite else { return "0" }
        var unit: Int64 = 1
        for _ in 0..<decimals { unit *= 10 }
        let scaled = Int64((abs(value) * Double(unit)).rounded())
        if scaled == 0 { return "0" }
        var fraction = scaled % unit, digits = decimals
        while digits > 0 && fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var text = (value < 0 ? "-" : "") + String(scaled / unit)
        if digits > 0 {
            let f = String(fraction)
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }

    /// A page's first lines, through its `<title>`: the doctype, the `html` element in `language`,
    /// and the head's character set, viewport and generator; `title` is HTML already (escaped).
    static func documentHead(language: String, title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(language)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="medrender">
        <title>\(title)</title>
        """
    }

    /// `seconds` as `M:SS` or `H:MM:SS`, for labels.
    static func clock(_ seconds: Double) -> String { ClockLabel.of(seconds: seconds) }
}
