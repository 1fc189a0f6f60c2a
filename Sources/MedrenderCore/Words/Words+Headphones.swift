extension Language {
    /// The note a file with binaural beats carries in its comment tag: they are heard only when
    /// each ear gets its own channel.
    public var headphonesNote: String {
        switch self {
        case .english: "Binaural beats: listen with headphones."
        case .german: "Binaurale Beats: mit Kopfhörern hören."
        case .french: "Battements binauraux : à écouter au casque."
        case .spanish: "Pulsos binaurales: escuchar con auriculares."
        case .italian: "Battimenti binaurali: ascoltare in cuffia."
        case .portuguese: "Batidas binaurais: ouvir com auscultadores."
        }
    }
}
