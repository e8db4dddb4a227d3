// The agent's side of screen sharing in the portal's remote view: answers the customer's offers,
// shows the shared screen (fit or actual size) and the camera picture-in-picture, sends chat and
// a pointer (a click on the picture, in 0..1 coordinates of the shared image) over a data channel.
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
const video = $("screen");
const pip = $("camera-video");
const stage = $("stage");

let pc = null;
let gen = -1;
let channel = null;
let ice = null;
let streamIds = { screen: null, camera: null };
const chat = chatBox((text) => sendData({ t: "chat", text }));

const sendData = dataSender(() => channel);

const signal = new Signaling(cfg, onSignal, (open, info) => {
  if (open) {
    if (info?.status === "ended" || info?.status === "expired") return finish(info.status);
    signal.send({ type: "hello" });
  } else if (info?.gaveUp) {
    showState(w.failed, "failed");
  }
});

function place(stream) {
  if (streamIds.camera === stream.id) {
    pip.srcObject = stream;
    pip.hidden = false;
  } else if (!video.srcObject || streamIds.screen === stream.id) {
    video.srcObject = stream;
  }
}

async function newPeer(g) {
  pc?.close();
  gen = g;
  ice ??= await iceConfiguration(cfg);
  const peer = new RTCPeerConnection(ice);
  pc = peer;
  globalThis.remoteSession = { pc: () => pc };
  peer.onicecandidate = (event) => {
    signal.send({ type: "candidate", gen: g, candidate: event.candidate?.toJSON() ?? null });
  };
  peer.ontrack = (event) => {
    const stream = event.streams[0] ?? new MediaStream([event.track]);
    place(stream);
    event.track.addEventListener("ended", () => {
      if (video.srcObject === stream) video.srcObject = null;
    });
  };
  peer.onconnectionstatechange = () => {
    if (pc !== peer) return;
    const s = peer.connectionState;
    if (s === "connected") showState(w.connected, "connected");
    else if (s === "failed") showState(w.failed, "failed");
  };
  peer.ondatachannel = (event) => {
    channel = event.channel;
    channel.onopen = () => chat.enable(true);
    channel.onclose = () => chat.enable(false);
    channel.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.t === "chat" && typeof m.text === "string") chat.show("•", m.text.slice(0, 2000));
      if (m.t === "streams") {
        streamIds = { screen: m.screen, camera: m.camera };
        if (!m.camera) pip.hidden = true;
      }
    };
  };
}

async function onSignal(from, msg) {
  if (from === "service" && msg.type === "status") {
    const key = { invited: "statusInvited", joined: "statusJoined", sharing: "statusSharing" };
    if (msg.status === "ended" || msg.status === "expired") return finish(msg.status);
    showState(w[key[msg.status]] ?? msg.status, document.body.dataset.rtc);
    return;
  }
  if (from !== "customer") return;
  if (msg.type === "hello") signal.send({ type: "here" });
  else if (msg.type === "bye") showState(w.waiting, "waiting");
  else if (msg.type === "sdp" && msg.description.type === "offer") {
    if (msg.gen !== gen || !pc) await newPeer(msg.gen);
    await pc.setRemoteDescription(msg.description);
    await pc.setLocalDescription();
    signal.send({ type: "sdp", gen, description: pc.localDescription.toJSON() });
  } else if (msg.type === "candidate" && msg.gen === gen && pc && msg.candidate) {
    await pc.addIceCandidate(msg.candidate).catch(() => {});
  }
}

function finish(status) {
  pc?.close();
  signal.close();
  chat.enable(false);
  showState(status === "expired" ? w.statusExpired : w.ended, "ended");
  $("end")?.setAttribute("disabled", "");
}

$("end")?.addEventListener("click", () => {
  signal.send({ type: "end" });
});

$("copy-link")?.addEventListener("click", () => {
  const url = $("join-url").value;
  navigator.clipboard?.writeText(url).catch(() => $("join-url").select());
});

$("fit")?.addEventListener("click", (event) => {
  const fit = stage.classList.toggle("fit");
  event.currentTarget.setAttribute("aria-pressed", String(fit));
  event.currentTarget.textContent = fit ? w.fit : w.actual;
});

video?.addEventListener("click", (event) => {
  // The picture's box inside the element (object-fit: contain leaves bars).
  const r = video.getBoundingClientRect();
  const vw = video.videoWidth || r.width;
  const vh = video.videoHeight || r.height;
  const scale = Math.min(r.width / vw, r.height / vh);
  const left = r.left + (r.width - vw * scale) / 2;
  const top = r.top + (r.height - vh * scale) / 2;
  const x = (event.clientX - left) / (vw * scale);
  const y = (event.clientY - top) / (vh * scale);
  if (x >= 0 && x <= 1 && y >= 0 && y <= 1) sendData({ t: "pointer", x, y });
});

signal.connect();
