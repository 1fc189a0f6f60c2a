import Foundation
import MedrenderTestSupport
import Testing

/// The cue sheet's events: sections, voice clips and bells, for an app's captions.
@Suite struct CueSheetEventsTests {
    @Test func theJSONSheetListsSectionsVoiceAndBellsInOrder() throws {
        let dir = TemporaryDirectory("events")
        let result = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "2", "--rate", "16000", "-o", dir.file("s.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("s.json")))) as! [String: Any]
        let events = try #require(json["events"] as? [[String: Any]])
        let frames = events.map { ($0["frame"] as! NSNumber).int64Value }
        #expect(frames == frames.sorted())
        let types = Set(events.map { $0["type"] as! String })
        #expect(types == ["section", "voice", "bell"])
        #expect(events.filter { $0["type"] as? String == "section" }.map { $0["name"] as! String } == ["Settle", "Breathing", "Closing"])
        let total = (json["frames"] as! NSNumber).int64Value
        for event in events {
            let start = (event["frame"] as! NSNumber).int64Value, end = (event["endFrame"] as! NSNumber).int64Value
            #expect(start >= 0 && end > start && end <= total, "\(event)")
            #expect(abs((event["seconds"] as! NSNumber).doubleValue - Double(start) / 16000) < 1e-6)
            #expect(abs((event["endSeconds"] as! NSNumber).doubleValue - Double(end) / 16000) < 1e-6)
        }
        // The intro is spoken in the settle, and lasts as long as its sound (over a second).
        let intro = try #require(events.first { $0["name"] as? String == "voice-intro" })
        let breathing = try #require(events.first { $0["name"] as? String == "Breathing" })
        let introEnd = (intro["endFrame"] as! NSNumber).int64Value
        #expect(introEnd - (intro["frame"] as! NSNumber).int64Value > 16000)
        #expect(introEnd <= (breathing["frame"] as! NSNumber).int64Value)
    }

    @Test func theWebVTTCaptionsTheVoiceAndKeepItsCuesInOrder() throws {
        let dir = TemporaryDirectory("events-vtt")
        let result = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "2", "-o", dir.file("s.vtt")])
        #expect(result.status == 0, "\(result.stderr)")
        let vtt = try String(contentsOfFile: dir.file("s.vtt"), encoding: .utf8)
        #expect(vtt.contains("\nsection-1\n00:00:00.000 --> "))
        #expect(vtt.contains("\n[voice: voice-intro]\n"))
        #expect(vtt.contains("\nbell-1\n"))
        #expect(vtt.contains("\n1\n") && vtt.contains("\nBreathe in\n"))
        // WebVTT wants the cues in order of their start times.
        let starts = vtt.split(separator: "\n").filter { $0.contains(" --> ") }.map { String($0.prefix(12)) }
        #expect(starts.count > 10)
        #expect(starts == starts.sorted())
    }

    @Test func audacityLabelsMarkTheVoiceAndBells() throws {
        let dir = TemporaryDirectory("events-txt")
        for ext in ["txt", "json"] {
            let result = try runMedrender(["cues", "--preset", "box-breath", "--minutes", "2", "--rate", "22050", "-o", dir.file("s.\(ext)")])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("s.json")))) as! [String: Any]
        let intro = try #require((json["events"] as! [[String: Any]]).first { $0["name"] as? String == "voice-intro" })
        let labels = try String(contentsOfFile: dir.file("s.txt"), encoding: .utf8).split(separator: "\n")
        let line = try #require(labels.first { $0.hasSuffix("\t[voice: voice-intro]") })
        let fields = line.split(separator: "\t")
        #expect(abs(Double(fields[0])! - Double((intro["frame"] as! NSNumber).int64Value) / 22050) < 0.6e-6)
        #expect(abs(Double(fields[1])! - Double((intro["endFrame"] as! NSNumber).int64Value) / 22050) < 0.6e-6)
        #expect(labels.filter { $0.hasSuffix("\t[bell]") }.count == 2)
    }
}
