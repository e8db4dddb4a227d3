// The customer's side of screen sharing: consent, then getDisplayMedia (and optionally the
// camera) sent to the agent over WebRTC. The customer's page makes every offer; a data channel
// carries chat and the agent's pointer, drawn over the preview of the customer's own share.
import {
  chatBox,
  dataSender,
  iceConfiguration,
  settings,
  showState,
  Signaling,
} from "./remote-common.js";

const cfg = settings();
const w = cfg.words;
const $ = (id) => document.getElementById(id);
const consent = $("consent");
const share = $("share");
const stop = $("stop");
const end = $("end");
const camera = $("camera");
const preview = $("preview");
const pointer = $("pointer");

let pc = null;
let gen = 0;
let channel = null;
let screen = null;
let cam = null;
let agentHere = false;
let ice = null;
let ended = false;
const chat = chatBox((text) => sendData({ t: "chat", text }));

const sendData = dataSender(() => channel);

const signal = new Signaling(cfg, onSignal, (open, info) => {
  if (open) {
    if (info?.status === "ended" || info?.status === "expired") return finish();
    signal.send({ type: "hello" });
  } else if (info?.gaveUp) {
    showState(w.failed, "failed");
  }
  refresh();
});

function refresh() {
  share.disabled = ended || !consent.checked || !!screen;
  stop.hidden = !screen;
  share.hidden = !!screen;
  if (ended) showState(w.ended, "ended");
}

function streamsNote() {
  sendData({ t: "streams", screen: screen?.id ?? null, camera: cam?.id ?? null });
}

async function negotiate() {
  pc?.close();
  gen += 1;
  const mine = gen;
  ice ??= await iceConfiguration(cfg);
  const peer = new RTCPeerConnection(ice);
  pc = peer;
  globalThis.remoteSession = { pc: () => pc };
  let candidates = 0;
  peer.onicecandidate = (event) => {
    if (event.candidate) candidates += 1;
    if (!event.candidate && candidates === 0 && ice.iceTransportPolicy === "relay") {
      showState(w.noRelay, "failed");
    }
    signal.send({ type: "candidate", gen: mine, candidate: event.candidate?.toJSON() ?? null });
  };
  peer.onconnectionstatechange = () => {
    if (pc !== peer) return;
    const s = peer.connectionState;
    if (s === "connected") showState(screen ? w.sharingNow : w.connected, "connected");
    else if (s === "failed") {
      showState(w.failed, "failed");
      peer.restartIce();
    }
  };
  peer.onnegotiationneeded = async () => {
    if (pc !== peer) return;
    await peer.setLocalDescription();
    signal.send({ type: "sdp", gen: mine, description: peer.localDescription.toJSON() });
  };
  channel = peer.createDataChannel("control");
  channel.onopen = () => {
    chat.enable(true);
    streamsNote();
  };
  channel.onclose = () => chat.enable(false);
  channel.onmessage = (event) => onData(JSON.parse(event.data));
  for (const stream of [screen, cam]) {
    for (const track of stream?.getTracks() ?? []) peer.addTrack(track, stream);
  }
}

function onData(m) {
  if (m.t === "chat" && typeof m.text === "string") chat.show("•", m.text.slice(0, 2000));
  if (m.t === "pointer" && Number.isFinite(m.x) && Number.isFinite(m.y)) {
    pointer.hidden = false;
    pointer.style.left = `${Math.min(Math.max(m.x, 0), 1) * 100}%`;
    pointer.style.top = `${Math.min(Math.max(m.y, 0), 1) * 100}%`;
    pointer.dataset.x = String(m.x);
    pointer.dataset.y = String(m.y);
  }
}

async function onSignal(from, msg) {
  if (from === "service" && msg.type === "status") {
    if (msg.status === "ended" || msg.status === "expired") finish();
    return;
  }
  if (from !== "agent") return;
  if (msg.type === "hello" || msg.type === "here") {
    if (msg.type === "hello") signal.send({ type: "here" });
    agentHere = true;
    await negotiate();
  } else if (msg.type === "bye") {
    agentHere = false;
    showState(w.waiting, "waiting");
  } else if (msg.type === "sdp" && msg.gen === gen && pc) {
    await pc.setRemoteDescription(msg.description);
  } else if (msg.type === "candidate" && msg.gen === gen && pc && msg.candidate) {
    await pc.addIceCandidate(msg.candidate).catch(() => {});
  }
}

consent.addEventListener("change", () => {
  if (consent.checked) signal.send({ type: "consent" });
  refresh();
});

share.addEventListener("click", async () => {
  if (!consent.checked) return;
  try {
    screen = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    if (camera.checked) {
      cam = await navigator.mediaDevices.getUserMedia({ video: true }).catch(() => null);
    }
  } catch {
    screen = null;
    return refresh();
  }
  preview.srcObject = screen;
  screen.getVideoTracks()[0].addEventListener("ended", stopSharing);
  signal.send({ type: "sharing", on: true });
  if (pc && agentHere) {
    for (const stream of [screen, cam]) {
      for (const track of stream?.getTracks() ?? []) pc.addTrack(track, stream);
    }
    streamsNote();
  }
  if (pc?.connectionState === "connected") showState(w.sharingNow, "connected");
  refresh();
});

function stopSharing() {
  if (!screen) return;
  for (const stream of [screen, cam]) for (const track of stream?.getTracks() ?? []) track.stop();
  for (const sender of pc?.getSenders() ?? []) if (sender.track) pc.removeTrack(sender);
  screen = null;
  cam = null;
  preview.srcObject = null;
  pointer.hidden = true;
  signal.send({ type: "sharing", on: false });
  refresh();
}

stop.addEventListener("click", stopSharing);

function finish() {
  if (ended) return;
  ended = true;
  stopSharing();
  pc?.close();
  signal.close();
  chat.enable(false);
  refresh();
}

end.addEventListener("click", () => {
  signal.send({ type: "end" });
  finish();
});

signal.connect();
