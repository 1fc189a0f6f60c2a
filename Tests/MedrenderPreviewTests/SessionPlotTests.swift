import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MedrenderCore
import MedrenderPreview
import Testing

@Suite struct SessionPlotTests {
    func timeline(envelope: [Float] = []) throws -> SessionTimeline {
        SessionTimeline(plan: try previewPlan(previewSession(BreathPattern(milliseconds: 4000, 2000, 6000, 1000))),
                        title: "Box & <friends>", envelope: envelope)
    }

    /// The SVG parses as XML (so a README or a browser shows it), with one rect per phase.
    @Test func thePlotIsWellFormedSVGWithEveryPhase() throws {
        let svg = SessionPlot(timeline: try timeline(envelope: (0..<500).map { Float($0 % 50) / 50 })).svg
        let document = try XMLDocument(xmlString: svg)
        let root = try #require(document.rootElement())
        #expect(root.name == "svg")
        #expect(svg.contains(" data-duration=\"44\" "))
        #expect(svg.contains("Box &amp; &lt;friends&gt;"))
        // 12 phases (3 cycles of 4), each a rect in its kind's colour.
        for (kind, colour) in SessionPlot.colours where kind != .topUp {
            let count = svg.components(separatedBy: "height=\"46\" fill=\"\(colour)\"/>").count - 1
            #expect(count == 3, "\(kind)")
        }
        #expect(svg.contains("<polygon points="))  // the waveform
        #expect(!svg.contains("id=\"playhead\""))
    }

    @Test func withoutAudioThereIsNoWaveformLane() throws {
        let svg = SessionPlot(timeline: try timeline()).svg
        #expect(!svg.contains(">waveform<"))
        #expect(svg.contains(">breath<"))
        // Ticks every 5 s to 0:40, and the end (4 s after, far enough for its own label).
        #expect(svg.contains(">0:40<") && svg.contains(">0:44<"))
        #expect(!svg.contains(">0:45<"))
    }

    @Test func thePageHoldsTheAudioThePlotAndTheScript() throws {
        let page = PreviewPage(timeline: try timeline(), audio: .embedded(bytes: [1, 2, 3, 250], mimeType: "audio/ogg"),
                               subtitle: "box-breath").html
        #expect(page.contains("src=\"data:audio/ogg;base64,AQID+g==\""))
        #expect(page.contains("id=\"playhead\""))
        #expect(page.contains("window.medrenderPreview"))
        #expect(page.contains("requestAnimationFrame"))
        #expect(!page.contains("setInterval") && !page.contains("setTimeout"))
        // No network: nothing is fetched from elsewhere.
        #expect(!page.contains("http://") || !page.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        #expect(!page.contains("https://"))
        // The title is escaped in the data, so it cannot end the script.
        #expect(page.contains("\"title\":\"Box \\u0026 \\u003cfriends\\u003e\""))
    }

    @Test func aURLAudioIsNamedAsItIs() throws {
        let page = PreviewPage(timeline: try timeline(), audio: .url("/render?preset=box-breath&minutes=2")).html
        #expect(page.contains("src=\"/render?preset=box-breath&amp;minutes=2\""))
    }
}
