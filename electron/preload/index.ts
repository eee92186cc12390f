// The sandboxed preload: one object, `window.sightline`, and nothing else. Bundled to
// out/preload/preload.cjs (a sandboxed preload can only require 'electron').
import { contextBridge, ipcRenderer } from 'electron';
import { createSightlineApi } from './api';

contextBridge.exposeInMainWorld('sightline', createSightlineApi(ipcRenderer));
