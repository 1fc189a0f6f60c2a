import Foundation
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// What a render is, as the cache and the ETag know it: the request's typed fields once parsed and
/// resolved (every default filled in, numbers as numbers, so the query's spelling and order do
/// not matter), the format, rate and channels, the preset file's bytes, each sound's file (its
/// name in the library and `FileIdentity`), the cover's bytes, the renderer's version and what the
/// session speaks (engine, voice, language, text and the engine's version, so a new engine renders
/// anew) and the words of its language (so does a corrected catalog). Two requests with the same
/// identity get the same bytes.
enum RenderIdentity {
    static func key(parameters: SessionRequest, presetFile: String, job: RenderJob, speech: [SpeechRequest]) -> String {
        var h = SHA256Hasher()
        h.update("medrender render \(LibraryBuild.rendererVersion)\n")
        // The layers in mixing order: a set's own order differs from one set to another of the same layers.
        var fields = parameters
        fields.layers = []
        h.update(fields: fields)
        h.update("layers \(Layer.listed(parameters.layers))\n")
        h.update(fields: job.format)
        h.update("rate \(job.options.rate) channels \(job.options.channels)\n")
        h.update("preset \(SHA256Hasher.hashFile(at: presetFile) ?? "unreadable")\n")
        for sound in job.sounds.sounds.values.sorted(by: { $0.ref.name < $1.ref.name }) {
            h.update("sound \(sound.ref.name) \(URL(fileURLWithPath: sound.path).lastPathComponent) \(FileIdentity(path: sound.path))\n")
        }
        if let cover = job.session.metadata.cover { h.update("cover \(SHA256Hasher.hashFile(at: cover) ?? "unreadable")\n") }
        for line in LanguageCatalog.lines(of: job.session.language) { h.update("words \(job.session.language.tag) \(line)\n") }
        for request in speech {
            h.update("speech \(request.key) \(request.engine.rawValue) \(request.voice) \(request.language.tag) \(request.engineVersion)\n")
        }
        return String(h.finalizeHex().prefix(40))
    }
}

extension SHA256Hasher {
    /// `value`'s typed fields, as JSON with sorted keys (the same value, the same bytes), then a
    /// newline.
    mutating func update(fields value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain values (strings, numbers, enums) cannot fail; were it to, the type's name
        // keeps the key apart from every value's.
        let data = (try? encoder.encode(value)) ?? Data("unencodable \(type(of: value))".utf8)
        update(Array(data))
        update("\n")
    }
}

/// The renders under way in this process, by identity: a request for one of them reads it
/// instead of starting another.
actor FlightTable {
    private var flights: [String: RenderFlight] = [:]

    /// The running flight of `key`, with a reader added, or nil (and `make`'s new one is
    /// registered, with its reader) when there is none.
    func join(_ key: String, make: () -> RenderFlight) -> (flight: RenderFlight, isNew: Bool) {
        if let flight = flights[key] {
            flight.addReader()
            return (flight, false)
        }
        let flight = make()
        flight.addReader()
        flights[key] = flight
        return (flight, true)
    }

    func remove(_ flight: RenderFlight) {
        if flights[flight.key] === flight { flights[flight.key] = nil }
    }
}
