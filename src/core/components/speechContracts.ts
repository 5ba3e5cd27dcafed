/** The speech call of an `auto_play` Message (RAGFlow's TTS; activities/speech.ts). */

/** Speech for a Message with `auto_play` (RAGFlow's TTS): the audio goes straight into the run's log at `slot`. */
export interface SpeakRequest {
  /** The Message's text, cut to {@link SPEAK_MAX_CHARS} characters. */
  text: string;
  /** Where the `message` event with the audio is written: (seq, 1) of the run's log. */
  slot: { runId: string; messageId: string; seq: number; createdAt: number };
}

export interface SpeakResult {
  /** Bytes of audio written into the slot (0: none). */
  bytes: number;
  /** Why no audio was made (no speech endpoint configured). */
  note?: string;
}

/** The longest text sent for speech: audio travels as hex in one event, so it stays a few MB at most. */
export const SPEAK_MAX_CHARS = 4000;
