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

    /// `seconds` as `M:SS` or `H:MM:SS`, for labels.
    static func clock(_ seconds: Double) -> String { ClockLabel.of(seconds: seconds) }
}
