import Foundation
import MedrenderCore

/// What the studio's page draws for one plan: the timeline's SVG (with its playhead) and the data
/// the breathing circle reads, the preview page's own.
public struct StudioPlanView: Sendable {
    public var timeline: SessionTimeline

    public init(timeline: SessionTimeline) { self.timeline = timeline }

    /// The timeline plot, as the preview page draws it, with its playhead.
    public var svg: String { SessionPlot(timeline: timeline, interactive: true).svg }

    /// The session as the page's circle reads it (JSON text), as the preview page embeds it.
    public var dataJSON: String { PreviewPage(timeline: timeline, audio: .url("")).dataJSON }
}

/// The studio: one page (no network beyond its own server, no build step) to write a session, see
/// its timeline and circle as it is typed, hear it from any point, and keep it.
///
/// A form for the common fields (the pattern's phases, minutes or cycles, settle, closing,
/// loudness, the beds' levels, each phase's cue tone with a button to hear it, the bells, a guided
/// script's voice lines, a chain's segments) and the YAML stay in sync: the form edits the YAML's
/// values in place (where the server's outline of the YAML says they are), the YAML fills the form
/// (from that outline). Each edit of the form is read back by the next plan's outline: one the YAML
/// would not read as the value written is undone, and its field says why.
/// Each change asks `POST /studio/plan` (debounced); every error shows at its line and column and
/// beside its field. The page's script and style are files of this module (`Resources/studio.js`,
/// `Resources/studio.css`, see `StudioPage.files`), served beside it; the script exposes
/// `window.medrenderStudio`.
public struct StudioPage: Sendable {
    /// Whether the server saves presets (`--presets-dir`): the Save form shows only then.
    public var canSave: Bool
    /// The languages the library has words for (BCP 47 tags), for the language field.
    public var languages: [String]
    /// The voices installed for guided scripts, as a preset names them (`festival`,
    /// `piper:en_US-joe-medium`…), offered by the voice field (which takes any other too).
    public var voices: [String]

    public init(canSave: Bool, languages: [String] = [], voices: [String] = []) {
        (self.canSave, self.languages, self.voices) = (canSave, languages, voices)
    }

    /// A preset to start from when none of the library is chosen.
    public static let blankPreset = """
        name: my-session
        description: A session of my own.
        minutes: 10
        pattern: 4-0-6-0
        settle: 15
        closing: 20
        cues:
          inhale: { tone: bell, pitch: 659.26, gain: -12 }
          exhale: { tone: bell, pitch: 440, gain: -12 }
        ambience:
          beds:
            - { sound: rain, level: -26 }
          fade-in: 8
          fade-out: 15
        master:
          loudness: -18
          true-peak: -1

        """

    /// Milliseconds after the last keystroke before the plan is asked for.
    public static let debounceMilliseconds = 120

    /// The language and voice fields: the library's languages, and the installed voices to
    /// choose from.
    private var languageAndVoice: String {
        let languageOptions = ["<option value=\"\">(the preset's; English when it names none)</option>"]
            + languages.map { "<option value=\"\(Markup.escape($0))\">\(Markup.escape($0))</option>" }
        let voiceOptions = voices.map { "<option value=\"\(Markup.escape($0))\"></option>" }
        return """
            <fieldset><legend>Language and voice</legend>
            <div class="row">
            <div><label for="f-language">Language</label><select id="f-language" data-path="language" data-choice="1">\(languageOptions.joined())</select></div>
            <div class="wide"><label for="f-voice">Voice of the guided script</label><input id="f-voice" data-path="guide.voice" data-text="text" data-optional="1" \
            type="text" list="voices" spellcheck="false" placeholder="piper:en_US-joe-medium"><datalist id="voices">\(voiceOptions.joined())</datalist></div>
            </div>
            <p class="field-error" id="err-language" role="alert"></p>
            </fieldset>
            """
    }

    /// The editor's form: the fields of the pattern, length and sections, the language and voice,
    /// beds, cue tones, bells, the guided script's lines and a chained session's segments, each
    /// with its error line.
    private var editorForm: String {
        """
        <form id="form" autocomplete="off" onsubmit="return false">
        <fieldset><legend>Breath pattern, in seconds</legend>
        <div class="phases">
        <div><label for="f-inhale">Inhale</label><input id="f-inhale" data-phase="0" type="number" min="0" max="120" step="0.1" inputmode="decimal"></div>
        <div><label for="f-hold-in">Hold (full)</label><input id="f-hold-in" data-phase="1" type="number" min="0" max="120" step="0.1" inputmode="decimal"></div>
        <div><label for="f-exhale">Exhale</label><input id="f-exhale" data-phase="2" type="number" min="0" max="120" step="0.1" inputmode="decimal"></div>
        <div><label for="f-hold-out">Hold (empty)</label><input id="f-hold-out" data-phase="3" type="number" min="0" max="120" step="0.1" inputmode="decimal"></div>
        </div>
        <p class="note" id="pattern-note" hidden>This pattern is written in the YAML (a ratio, segments or a sigh); edit it there.</p>
        <p class="field-error" id="err-pattern" role="alert"></p>
        </fieldset>
        <fieldset><legend>Length and sections</legend>
        <div class="row">
        <div><label for="f-length-unit">Length in</label><select id="f-length-unit"><option value="minutes">minutes</option><option value="cycles">cycles</option></select></div>
        <div><label for="f-minutes" id="f-minutes-label">Minutes</label><input id="f-minutes" type="number" min="0.05" max="100000" step="any" inputmode="decimal">
        <p class="field-error" id="err-minutes" role="alert"></p></div>
        <div><label for="f-settle">Settle (s)</label><input id="f-settle" data-path="settle" data-empty="keep" type="number" min="0" max="3600" step="1" inputmode="decimal">
        <p class="field-error" id="err-settle" role="alert"></p></div>
        <div><label for="f-closing">Closing (s)</label><input id="f-closing" data-path="closing" data-empty="keep" type="number" min="0" max="3600" step="1" inputmode="decimal">
        <p class="field-error" id="err-closing" role="alert"></p></div>
        <div><label for="f-loudness">Loudness (LUFS)</label><input id="f-loudness" data-path="master.loudness" data-empty="keep" type="number" min="-40" max="-6" step="0.5" inputmode="decimal">
        <p class="field-error" id="err-loudness" role="alert"></p></div>
        </div>
        </fieldset>
        \(languageAndVoice)
        <fieldset><legend>Ambience beds, level in dB</legend>
        <div id="beds" class="row"></div>
        <p class="field-error" id="err-beds" role="alert"></p>
        </fieldset>
        <fieldset><legend>Cue tones per phase</legend>
        <div id="cues" class="list"></div>
        <p class="field-error" id="err-cues" role="alert"></p>
        <audio id="cue-audio" preload="none" aria-label="The cue tone"></audio>
        </fieldset>
        <fieldset><legend>Bells</legend>
        <div class="row">
        <div><label for="f-bells-start">Start bell (sound)</label><input id="f-bells-start" data-path="bells.start" data-text="name" type="text" spellcheck="false" placeholder="bell"></div>
        <div><label for="f-bells-end">End bell (sound)</label><input id="f-bells-end" data-path="bells.end" data-text="name" type="text" spellcheck="false" placeholder="bell"></div>
        <div><label for="f-bells-every">Every (min)</label><input id="f-bells-every" data-path="bells.every" type="number" min="0.1" max="1440" step="any" inputmode="decimal"></div>
        <div><label for="f-bells-gain">Bell gain (dB)</label><input id="f-bells-gain" data-path="bells.gain" type="number" min="-60" max="12" step="1" inputmode="decimal"></div>
        </div>
        <p class="field-error" id="err-bells" role="alert"></p>
        </fieldset>
        <fieldset><legend>Voice lines of the guided script</legend>
        <div id="guide" class="list"></div>
        <button type="button" id="add-line">Add a voice line</button>
        <p class="field-error" id="err-guide" role="alert"></p>
        </fieldset>
        <fieldset><legend>Segments of a chained session</legend>
        <div id="segments" class="list"></div>
        <button type="button" id="add-segment">Add a segment</button>
        <p class="field-error" id="err-segments" role="alert"></p>
        </fieldset>
        </form>
        """
    }

    /// The session's view: the summary, the breathing circle, the listening controls and the timeline.
    private static let sessionView = """
        <section class="view" aria-label="The session">
        <p class="sub" id="summary" aria-live="polite"></p>
        <div class="stage" id="stage"><div class="ring"></div><div class="circle" id="circle"></div>
        <div class="label" id="label" aria-live="off"></div></div>
        <div class="listen">
        <label for="from">Listen from (s)</label>
        <input id="from" type="number" min="0" step="1" value="0" inputmode="decimal">
        <button type="button" id="play">Play from here</button>
        <span id="clock" class="clock">0:00</span>
        </div>
        <audio id="audio" controls preload="none" aria-label="The session from the chosen point"></audio>
        <div class="timeline" id="timeline" tabindex="0" role="slider" aria-label="Timeline: click, or use the arrow keys and Enter, to listen from a point" aria-valuemin="0" aria-valuenow="0"></div>
        </section>
        """

    public var html: String {
        var kindColours = ""
        for (kind, colour) in SessionPlot.colours {
            kindColours += ".circle[data-kind=\"\(kind.rawValue)\"]{background:radial-gradient(circle at 50% 40%,#ffffff 0,\(colour) 70%)}\n"
        }
        let save = canSave ? """
            <fieldset class="save"><legend>Save into the library</legend>
            <label for="save-name">Name</label>
            <input id="save-name" name="save-name" type="text" autocomplete="off" spellcheck="false" placeholder="evening-478" aria-describedby="save-status">
            <label class="check"><input id="save-replace" type="checkbox"> Replace a preset of that name</label>
            <button type="button" id="save">Save</button>
            </fieldset>
            """ : ""
        return """
            \(Markup.documentHead(language: "en", title: "Studio · medrender"))
            <script>window.addEventListener('error',function(e){var d=document.documentElement;d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+(e.message||'error')+'; ');});</script>
            <link rel="stylesheet" href="\(Self.style.path)">
            <style>
            \(kindColours)</style>
            </head>
            <body>
            <header><h1>Studio</h1>
            <div class="start"><label for="start">Start from</label>
            <select id="start"><option value="">A blank session</option></select>
            <button type="button" id="load">Open</button></div>
            </header>
            <main>
            <section class="editor" aria-label="Edit the session">
            \(editorForm)
            <div class="yaml">
            <label for="yaml">Preset (YAML)</label>
            <div class="code"><pre id="gutter" aria-hidden="true"></pre><textarea id="yaml" spellcheck="false" wrap="off" aria-describedby="yaml-error" rows="22"></textarea></div>
            <p class="error" id="yaml-error" role="alert" aria-live="assertive"></p>
            <div class="keep">
            <button type="button" id="download">Download YAML</button>
            <div class="render"><label for="render-format">Render as</label>
            <select id="render-format"><option value="ogg">OGG Vorbis</option><option value="mp3">MP3</option><option value="flac">FLAC</option><option value="opus">Opus</option><option value="wav">WAV</option></select>
            <button type="button" id="download-render">Download the render</button></div>
            \(save)
            <p id="save-status" class="status" role="status" aria-live="polite"></p>
            </div>
            </div>
            </section>
            \(Self.sessionView)
            </main>
            <script type="application/json" id="blank">\(Markup.jsonString(Self.blankPreset))</script>
            <script src="\(Self.script.path)" data-debounce-ms="\(Self.debounceMilliseconds)"></script>
            </body>
            </html>

            """
    }
}
