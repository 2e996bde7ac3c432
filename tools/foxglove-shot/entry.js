// Mounts studio-base's <App> as Foxglove's web app does (packages/studio-web/src/Root.tsx of
// foxglove/studio 1.48), with settings and layouts held in memory instead of localStorage and
// IndexedDB so every run starts the same: one layout ("sensim", from layout.json) and the MCAP
// data sources. The page's URL carries the rest (?ds=remote-file&ds.url=...&layoutId=sensim&time=...).
/* global React, ReactDOM */
"use strict";

class MemoryAppConfiguration {
  constructor(values) { this.values = new Map(Object.entries(values)); this.listeners = new Map(); }
  get(key) { return this.values.get(key); }
  async set(key, value) {
    this.values.set(key, value);
    for (const cb of this.listeners.get(key) ?? []) cb(value);
  }
  addChangeListener(key, cb) {
    if (!this.listeners.has(key)) this.listeners.set(key, new Set());
    this.listeners.get(key).add(cb);
  }
  removeChangeListener(key, cb) { this.listeners.get(key)?.delete(cb); }
}

class MemoryLayoutStorage {
  constructor(layouts) { this.byNs = new Map([["local", new Map(layouts.map((l) => [l.id, l]))]]); }
  ns(namespace) {
    if (!this.byNs.has(namespace)) this.byNs.set(namespace, new Map());
    return this.byNs.get(namespace);
  }
  async list(namespace) { return [...this.ns(namespace).values()]; }
  async get(namespace, id) { return this.ns(namespace).get(id); }
  async put(namespace, layout) { this.ns(namespace).set(layout.id, layout); return layout; }
  async delete(namespace, id) { this.ns(namespace).delete(id); }
  async importLayouts({ fromNamespace, toNamespace }) {
    for (const l of this.ns(fromNamespace).values()) this.ns(toNamespace).set(l.id, l);
  }
}

// What a user would have dismissed once: the data-source sidebar (so the panels get the width) and
// the panels' settings tooltips. Both live in localStorage, which is empty in a fresh profile.
function dismissFirstRunUi() {
  localStorage.setItem("fox.workspace", JSON.stringify({
    state: { sidebarItem: null, leftSidebarOpen: false, rightSidebarOpen: false },
    version: 0,
  }));
  localStorage.setItem("studio.profile-data", JSON.stringify({
    onboarding: { settingsTooltipShownForPanelTypes: ["3D", "ImageViewPanel"] },
  }));
  localStorage.setItem("i18nextLng", "en");
}

async function main() {
  dismissFirstRunUi();
  await initI18n();
  const data = await (await fetch("/layout.json")).json();
  const layout = {
    id: "sensim",
    name: "sensim",
    permission: "CREATOR_WRITE",
    baseline: { data, savedAt: new Date(0).toISOString() },
    working: undefined,
    syncInfo: undefined,
  };
  const appConfiguration = new MemoryAppConfiguration({
    colorScheme: "dark",
    timezone: "UTC",
    "telemetry.telemetryEnabled": false,
    "telemetry.crashReportingEnabled": false,
    hideSignInPrompt: true,
    launchPreference: "web",
    "ui.open-dialog-startup": false,
  });
  const app = React.createElement(App, {
    deepLinks: [window.location.href],
    dataSources: [new McapLocalDataSourceFactory(), new RemoteDataSourceFactory()],
    appConfiguration,
    layoutStorage: new MemoryLayoutStorage([layout]),
    extensionLoaders: [],
    enableLaunchPreferenceScreen: false,
    enableGlobalCss: true,
  });
  ReactDOM.render(app, document.getElementById("root"));
}

main().catch((err) => console.error("sensim foxglove-shot:", err));
