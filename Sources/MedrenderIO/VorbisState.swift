import CVorbis

/// libvorbis's codec state (`vorbis_info`, `vorbis_dsp_state`, `vorbis_block`), as the encoder,
/// the analyses of the pieced encoder and the decoder each hold one: allocated once, since
/// libvorbis keeps pointers between them, and cleared as far as they were set up when this goes.
/// `info` is ready from the start; `start` sets up the rest once `info` says what to code.
/// Not `Sendable`: one state belongs to one thread.
final class VorbisState {
    let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private var started = 0  // of `dsp` and `block`, how many are set up, for deinit

    init() { vorbis_info_init(info) }

    /// Sets up `dsp` and `block` from `info`, to encode or (`decoding`) to decode.
    /// The corresponding C functions are `vorbis_analysis_init`, `vorbis_synthesis_init` and `vorbis_block_init`.
    func start(decoding: Bool) throws(IOError) {
        let failure = IOError(.library, decoding ? "the Vorbis decoder would not start" : "the Vorbis encoder would not start")
        guard (decoding ? vorbis_synthesis_init(dsp, info) : vorbis_analysis_init(dsp, info)) == 0 else { throw failure }
        started = 1
        guard vorbis_block_init(dsp, block) == 0 else { throw failure }
        started = 2
    }

    deinit {
        if started >= 2 { vorbis_block_clear(block) }
        if started >= 1 { vorbis_dsp_clear(dsp) }
        vorbis_info_clear(info)
        info.deallocate()
        dsp.deallocate()
        block.deallocate()
    }
}
