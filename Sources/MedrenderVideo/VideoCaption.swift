// SPDX-License-Identifier: Apache-2.0
import Medrender
import MedrenderCore

/// A spoken line as the video shows it: burnt in under the circle while it sounds, and a cue of
/// the file's subtitle track (`mov_text` in an MP4, WebVTT in a WebM). Its frames are the mix's,
/// as the cue sheet gives them; its text is the cue sheet's caption (the words spoken, or a
/// recording's name in brackets). An M4A's chapter is one too (`MediaChapter`: a section's title).
public struct VideoCaption: Hashable, Sendable, Codable {
    public var frame: Int64
    public var endFrame: Int64
    public var text: String

    public init(frame: Int64, endFrame: Int64, text: String) {
        (self.frame, self.endFrame, self.text) = (frame, endFrame, text)
    }

    /// What the voice says in `plan`, in the order it starts: script lines, spoken prompts, the
    /// spoken lead-in and countdown, recordings.
    public static func spoken(in plan: RenderPlan) -> [VideoCaption] {
        let words = plan.guide.language.words
        return plan.events.filter { $0.kind == .voice && $0.endFrame > $0.frame }
            .map { VideoCaption(frame: $0.frame, endFrame: $0.endFrame, text: $0.caption(words)) }
            .sorted { ($0.frame, $0.endFrame) < ($1.frame, $1.endFrame) }
    }

    /// The caption sounding at audio frame `frame` among `captions` (sorted by start): the one
    /// that started last, when lines overlap; "" when none sounds.
    public static func text(at frame: Int64, in captions: [VideoCaption]) -> String {
        // The first caption starting after `frame`, by bisection.
        var low = 0, high = captions.count
        while low < high {
            let mid = (low + high) / 2
            if captions[mid].frame <= frame { low = mid + 1 } else { high = mid }
        }
        return captions[..<low].last { $0.endFrame > frame }?.text ?? ""
    }
}
