import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import Synchronization

/// The measured loudness and peak of mixes already rendered (pass 1's result), so that rendering the same
/// mix again (a repeat request to a server, the same session in another format) skips pass 1 and
/// starts writing at once. The mix is known by everything it is made of: the session, the options
/// that shape it (rate, channels, length, layers) and each sound's file, size and modification
/// time. Safe to share between threads; it keeps at most `capacity` entries.
public final class LoudnessCache: Sendable {
    struct Key: Hashable {
        var session: Session
        var options: RenderOptions
        var sounds: [SoundIdentity]

        struct SoundIdentity: Hashable {
            var ref: SoundRef
            var path: String
            var file: FileIdentity
        }

        init(job: RenderJob) {
            session = job.session
            options = job.options
            sounds = job.sounds.sounds.values.sorted { $0.ref.name < $1.ref.name }.map { sound in
                SoundIdentity(ref: sound.ref, path: sound.path, file: FileIdentity(path: sound.path))
            }
        }
    }

    /// The measures, and their keys in the order they came (the oldest goes first).
    private struct Entries {
        var measures: [Key: LoudnessPass.Measure] = [:]
        var order: [Key] = []
    }

    private let entries = Mutex(Entries())
    public let capacity: Int

    public init(capacity: Int = 1024) { self.capacity = max(1, capacity) }

    /// How many mixes it knows.
    public var count: Int { entries.withLock { $0.measures.count } }

    func measured(_ key: Key) -> LoudnessPass.Measure? { entries.withLock { $0.measures[key] } }

    func record(_ measure: LoudnessPass.Measure, for key: Key) {
        entries.withLock { entries in
            if entries.measures.updateValue(measure, forKey: key) == nil { entries.order.append(key) }
            while entries.order.count > capacity { entries.measures[entries.order.removeFirst()] = nil }
        }
    }
}
