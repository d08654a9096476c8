// What other features may use of the alerts feature besides its api/ folder: the bell the app
// shell shows (a default export, for the shell's lazy import).
export { default } from './components/alerts-bell';
