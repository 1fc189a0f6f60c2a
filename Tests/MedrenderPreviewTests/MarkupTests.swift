@testable import MedrenderPreview
import Testing

@Suite struct MarkupTests {
    @Test(arguments: [(0.0, 2, "0"), (12.5, 2, "12.5"), (3, 2, "3"), (-0.25, 2, "-0.25"), (1.005, 1, "1"), (0.0000004, 6, "0"),
                      (9.315, 6, "9.315"), (43200.123456, 6, "43200.123456"), (-0.04, 1, "0"), (Double.nan, 2, "0")])
    func numbersHaveNoTrailingZerosAndNoExponent(value: Double, decimals: Int, text: String) {
        #expect(Markup.number(value, decimals: decimals) == text)
    }

    @Test(arguments: [(0.0, "0:00"), (59.999, "0:59"), (60, "1:00"), (3599, "59:59"), (3600, "1:00:00"), (86400, "24:00:00")])
    func clockLabels(seconds: Double, text: String) {
        #expect(Markup.clock(seconds) == text)
    }

    @Test func textCannotBreakOutOfItsElementOrScript() {
        #expect(Markup.escape("a<b & \"c\" 'd'") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;")
        #expect(Markup.jsonString("</script>\n\u{1}") == "\"\\u003c/script\\u003e\\n\\u0001\"")
    }
}
