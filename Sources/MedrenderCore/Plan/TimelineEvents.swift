/// Something on the session's clock besides the breath phases (which are the plan's `schedule`):
/// a section, a voice clip or spoken line, a bell, a countdown tick; from its first frame to the
/// frame after its last.
///
/// The plan gives these once, as one list (`RenderPlan.events`), and every face reads that list:
/// the cue sheets and captions, the preview page and the plot (through `SessionTimeline`), the
/// studio and the video. None of them goes back to the plan's clips to sort a bell from a voice
/// again, and a section is known by its `SessionSection`, never by its name. The ambience beds and
/// the dips under the voice are the plan's `beds` and `ducking`, which the faces read as they are.
public struct TimelineEvent: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case section, voice, bell, countdown
    }
    public var kind: Kind
    /// The section itself, for a `section`; nil for a sound.
    public var section: SessionSection?
    /// A section's name in the session's language (`Words.section`), or the sound's name
    /// (`voice/intro`, `bell`, `countdown`).
    public var name: String
    public var frame: Int64
    /// The frame after its last: a section ends where the next one starts (or the session ends),
    /// a sound where it stops sounding.
    public var endFrame: Int64
    /// What a voice line says (a guided script's line, a spoken prompt or lead-in), when known.
    public var text: String?

    /// What a listener reads for it: the words spoken, else a recording's name without its
    /// folder or extension (`intro` for `voice/intro.wav`), never a path or a sound's hash.
    public var label: String { text ?? Self.shortName(name) }

    /// `name` without the folders before it and its extension.
    public static func shortName(_ name: String) -> String {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    public init(kind: Kind, section: SessionSection? = nil, name: String, frame: Int64, endFrame: Int64, text: String? = nil) {
        self.kind = kind
        self.section = section
        self.name = name
        self.frame = frame
        self.endFrame = endFrame
        self.text = text
    }
}

extension RenderPlan {
    /// The sections, voice clips, bells and countdown ticks, in order of their first frame
    /// (sections, then voice, bells and ticks on a tie; in plan order after that).
    public var events: [TimelineEvent] {
        var events: [TimelineEvent] = []
        let words = guide.language.words
        var spoken: [Int64: [PlacedLine]] = [:]
        for line in guide.lines { spoken[line.startFrame, default: []].append(line) }
        for (index, section) in sections.enumerated() {
            let end = sections[(index + 1)...].first { $0.frame > section.frame }?.frame ?? totalFrames
            events.append(TimelineEvent(kind: .section, section: section, name: words.section(section), frame: section.frame, endFrame: end))
        }
        for clip in clips {
            let kind: TimelineEvent.Kind, name: String
            var said: String?
            switch (clip.layer, clip.sound) {
            case (.voice, .file(let ref)): kind = .voice; name = ref.name; said = guide.spoken[ref]
            case (.bells, .file(let ref)): kind = .bell; name = ref.name
            case (.bells, .countdown): kind = .countdown; name = "countdown"
            default: continue
            }
            let text = kind == .voice ? spoken[clip.startFrame]?.first { $0.sound?.name == name }?.text ?? said : nil
            events.append(TimelineEvent(kind: kind, name: name, frame: clip.startFrame, endFrame: clip.startFrame + soundingFrames(of: clip), text: text))
        }
        let order = Dictionary(uniqueKeysWithValues: TimelineEvent.Kind.allCases.enumerated().map { ($1, $0) })
        return events.enumerated().sorted {
            ($0.element.frame, order[$0.element.kind]!, $0.offset) < ($1.element.frame, order[$1.element.kind]!, $1.offset)
        }.map(\.element)
    }
}
