/*
 * gru_layer_bench.c — one GRU layer (B 128, T 24, C = H = 24) through the CPU backend: CPU time
 * of gru_forward and gru_backward (with weight gradients), and the GFLOP/s of their matmuls.
 * Built against a tree's static library (NOTES.md); a measurement aid for docs/timegan.md §9.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "backend.h"
static double cpu_s(void){struct timespec ts;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&ts);return ts.tv_sec+1e-9*ts.tv_nsec;}
int main(int argc,char**argv){
  int B=128,T=24,C=24,H=24,reps=argc>1?atoi(argv[1]):50;
  genesis_ctx*ctx;gen_backend*be;genesis_ctx_create(&ctx);gen_backend_cpu_create(ctx,1,&be);
  size_t BT=(size_t)B*T;
  float*x=malloc(BT*C*4),*y=malloc(BT*H*4),*save=malloc(BT*4*H*4),*W=malloc(gen_gru_weight_floats(C,H)*4),*b=malloc(6*H*4);
  float*dx=calloc(BT*C,4),*dW=calloc(gen_gru_weight_floats(C,H),4),*db=calloc(6*H,4),*work=malloc(gen_gru_work_floats(B,T,H)*4),*dy=malloc(BT*H*4);
  for(size_t i=0;i<BT*C;i++)x[i]=(rand()%1000)/1000.f-.5f;
  for(size_t i=0;i<gen_gru_weight_floats(C,H);i++)W[i]=(rand()%1000)/5000.f-.1f;
  for(int i=0;i<6*H;i++)b[i]=0.1f;
  for(size_t i=0;i<BT*H;i++)dy[i]=(rand()%1000)/1000.f-.5f;
  double fl=2.0*B*3*H*((double)T*C+(T-1.0)*H);
  be->ops->gru_forward(be,y,save,x,NULL,W,b,B,T,C,H);
  double c0=cpu_s();
  for(int r=0;r<reps;r++)be->ops->gru_forward(be,y,save,x,NULL,W,b,B,T,C,H);
  double f=(cpu_s()-c0)/reps;
  c0=cpu_s();
  for(int r=0;r<reps;r++)be->ops->gru_backward(be,dx,NULL,dW,db,work,dy,x,NULL,y,save,W,B,T,C,H);
  double bw=(cpu_s()-c0)/reps;
  double bfl=fl+2.0*B*T*3*H*C+ 2.0*B*3*H*(T-1.0)*H + 2.0*B*T*3*H*C;
  printf("forward %.3f ms %.1f GFLOP/s; backward %.3f ms %.1f GFLOP/s\n",f*1e3,fl/f*1e-9,bw*1e3,bfl/bw*1e-9);
  return 0;}
