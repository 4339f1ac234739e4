// The settings page's "Notify me in this browser" switch (templates/webpush/_optin.html):
// registers /push-sw.js, subscribes with the site's VAPID key and sends the
// subscription to the site (JSON, with the CSRF token); off unsubscribes and
// tells the site. A browser without Web Push sees one sentence saying so.
(() => {
  "use strict";
  const box = document.getElementById("webpush");
  if (!box) return;
  const button = box.querySelector("[data-webpush-toggle]");
  const state = box.querySelector("[data-webpush-says]");
  const csrf = box.querySelector("input[name=csrfmiddlewaretoken]").value;
  const key = box.dataset.key;

  const say = (text) => { state.textContent = text; };
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  if (!supported) {
    say("This browser cannot show notifications from the site.");
    box.dataset.webpushState = "unsupported";
    return;
  }

  const keyBytes = (text) => {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  };

  const post = async (url, body) => {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      let message = `The site answered ${response.status}.`;
      try { message = (await response.json()).error.message || message; } catch (error) { /* keep it */ }
      throw new Error(message);
    }
  };

  const show = (on) => {
    box.dataset.webpushState = on ? "on" : "off";
    button.textContent = on ? "Stop notifying this browser" : "Notify me in this browser";
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.disabled = false;
    if (Notification.permission === "denied") {
      say("Notifications from this site are blocked in this browser's settings.");
    } else {
      say(on ? "This browser is told when it is your turn and you are away."
             : "This browser is not told.");
    }
  };

  const registration = () => navigator.serviceWorker.register(box.dataset.worker, { scope: "/" });

  const current = async () => {
    const reg = await navigator.serviceWorker.getRegistration("/");
    return reg ? reg.pushManager.getSubscription() : null;
  };

  const subscribe = async () => {
    if ((await Notification.requestPermission()) !== "granted") {
      show(false);
      return;
    }
    await registration();
    const reg = await navigator.serviceWorker.ready;
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await post(box.dataset.subscribe, { ...sub.toJSON(), key });
    show(true);
  };

  const unsubscribe = async () => {
    const sub = await current();
    if (sub) {
      await post(box.dataset.unsubscribe, { endpoint: sub.endpoint });
      await sub.unsubscribe();
    }
    show(false);
  };

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await (box.dataset.webpushState === "on" ? unsubscribe() : subscribe());
    } catch (error) {
      button.disabled = false;
      say(`Could not change it: ${error.message}`);
    }
  });

  (async () => {
    try {
      let sub = await current();
      if (sub && sub.options && sub.options.applicationServerKey) {
        // Made with a key the site has since rotated: make it again with the new one.
        const made = new Uint8Array(sub.options.applicationServerKey);
        const now = keyBytes(key);
        if (made.length !== now.length || made.some((b, i) => b !== now[i])) {
          await sub.unsubscribe();
          sub = null;
          await subscribe();
          return;
        }
      }
      // The site may have dropped it (a refused send): telling it again is harmless.
      if (sub) await post(box.dataset.subscribe, { ...sub.toJSON(), key });
      show(Boolean(sub));
    } catch (error) {
      show(false);
      say(`Could not read this browser's notifications: ${error.message}`);
    }
  })();
})();
